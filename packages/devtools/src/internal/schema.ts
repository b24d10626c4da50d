// Schemas the page builds forms from and the server validates with. Anything implementing Standard Schema works
// (zod ≥ 3.24, valibot, arktype); zod 4 also implements Standard JSON Schema, which gives the page its form.
// Nothing here imports zod: devtools must not add a second copy of it to a user's install.

/** What devtools needs of a schema: the Standard Schema `validate` (and, optionally, its JSON Schema). */
export interface AnswerSchema {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => SchemaResult | Promise<SchemaResult>;
    readonly jsonSchema?: { readonly input: (options: { readonly target: string }) => Record<string, unknown> };
  };
}

type SchemaResult =
  | { readonly value: unknown; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{
        readonly message: string;
        readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
      }>;
    };

export function isAnswerSchema(value: unknown): value is AnswerSchema {
  const std = (value as { "~standard"?: { validate?: unknown } } | null | undefined)?.["~standard"];
  return typeof std === "object" && std !== null && typeof std.validate === "function";
}

/** The schema's JSON Schema for the page's form, or undefined when the library can't give one. */
export function jsonSchemaOf(schema: AnswerSchema): Record<string, unknown> | undefined {
  try {
    return schema["~standard"].jsonSchema?.input({ target: "draft-2020-12" });
  } catch {
    // A schema with no JSON form (a transform, a custom check): the page falls back to free JSON.
    return undefined;
  }
}

/** Validates `value`: the parsed value, or the issues as one line each (`note: expected string`). */
export async function validate(
  schema: AnswerSchema,
  value: unknown,
): Promise<{ ok: true; value: unknown } | { ok: false; issues: string[] }> {
  const result = await schema["~standard"].validate(value);
  if (result.issues === undefined) return { ok: true, value: result.value };
  return {
    ok: false,
    issues: result.issues.map((issue) => {
      const path = (issue.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".");
      return path === "" ? issue.message : `${path}: ${issue.message}`;
    }),
  };
}
