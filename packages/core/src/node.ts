import type * as z from "zod";
import { type Duration, parseDuration } from "./duration.js";
import { GraphConfigError } from "./errors.js";
import { BaseNode, type BaseSpec, type Port } from "./internal/BaseNode.js";
import { describeValue, isPlainRecord } from "./internal/describe.js";
import { framesSpec } from "./internal/frameOptions.js";
import { schemaFingerprints, sha256, stableStringify } from "./internal/hash.js";
import { checkNodeOptions, isZodSchema } from "./internal/optionChecks.js";
import { detectMode, type ExecutionMode, parseDestructuredParams } from "./internal/params.js";
import type { NodeContext, RetryOptions } from "./NodeContext.js";
import type {
  FrameOutputs,
  InputsFrom,
  NodeFlags,
  NodeFn,
  OutputsWithSchema,
  ParamFor,
  ParamOf,
  ReturnHint,
  SchemaRecord,
} from "./types/infer.js";
import type { NodeTypes } from "./types/ports.js";
import type { Empty, RenameKeys, RenamesFor } from "./types/util.js";

/**
 * How a node function runs, detected from the function itself. Generator modes stream: every `yield` is a chunk.
 *
 * @example
 * ```ts
 * node({ output: "x" }, async () => 1).mode; // "async"
 * ```
 */
export type NodeMode = ExecutionMode;

/**
 * Options of {@link node}.
 *
 * @example
 * ```ts
 * const opts: NodeOptions = { name: "split", inputs: ["x"], output: ["first", "second"] };
 * ```
 */
export interface NodeOptions {
  /** Defaults to the function's own name. */
  readonly name?: string;
  /** Input names, or a record of zod schemas (validated before the call; zod defaults make an input optional). */
  readonly inputs?: readonly string[] | Readonly<Record<string, z.ZodType>>;
  /** One output name (the return value as-is), several (an array or object of exactly that arity), or none. */
  readonly output?: string | readonly string[];
  /** Defaults for array-form inputs; cloned fresh for every run. */
  readonly defaults?: Readonly<Record<string, unknown>>;
  /** A zod schema for the single output, or one per output name. */
  readonly outputSchema?: z.ZodType | Readonly<Record<string, z.ZodType>>;
  /** Opt into the runner's cache (key: definition hash + input values). */
  readonly cache?: boolean;
  /**
   * With `cache: true`: what the cache keys a call by instead of all its inputs — for inputs that are not plain
   * data (a client object, a class instance) or that hold parts the result does not depend on. Return a string or
   * plain data (Dates, Maps, Sets allowed); the node's definition hash is always part of the key.
   *
   * @example
   * ```ts
   * const embed = node(
   *   { output: "vector", cache: true, cacheKey: ({ doc }) => (doc as { id: string }).id },
   *   async ({ doc }: { doc: { id: string; text: string } }) => [doc.text.length],
   * );
   * ```
   */
  readonly cacheKey?: (inputs: Readonly<Record<string, unknown>>) => unknown;
  readonly retry?: RetryOptions;
  /** Timeout of each attempt. */
  readonly timeoutMs?: number;
  /**
   * At most this many calls of this node at once — a number, or `{ key, limit }` for a limit per key of its inputs
   * (per tenant, per model). With a checkpointer the limit holds across every runner and process on the store;
   * without one, in the runner. Calls over the limit wait (and can be stopped while they wait). Not part of the
   * definition hash: it is how calls are scheduled, not what they compute.
   */
  readonly concurrency?: number | NodeConcurrency;
  /** At most `limit` calls started per `per` (per key), shared like `concurrency`. */
  readonly rateLimit?: NodeRateLimit;
  /**
   * A generator node whose yields are **items** (frames), not chunks of one value: the nodes that consume its output
   * run once per frame, as frames appear (see `docs/pipelines.md`). `true` or `{ window }`: at most `window`
   * frames (default 16) are unfinished at once; the generator is not pulled further until one finishes.
   */
  readonly frames?: boolean | FramesOptions;
  /**
   * This node reads the **whole list** of a frames pipeline's per-frame values (after the stream ended) instead of
   * running once per frame. Only meaningful for a consumer of a frames node's output or of its per-frame results.
   */
  readonly gather?: boolean;
}

/**
 * Options of a frames node (`node({ frames: { window } })`).
 *
 * @example
 * ```ts
 * const opts: FramesOptions = { window: 8 };
 * ```
 */
export interface FramesOptions {
  /** At most this many frames unfinished at once (an integer ≥ 1, default 16). */
  readonly window?: number;
}

/**
 * A rate limit: at most `limit` calls start in any window of length `per`, per key of the inputs.
 *
 * @example
 * ```ts
 * const openai: NodeRateLimit = { scope: "openai", limit: 60, per: "1m" };
 * const perTenant: NodeRateLimit = { key: ({ tenantId }) => String(tenantId), limit: 20, per: "1s" };
 * ```
 */
export interface NodeRateLimit {
  /**
   * The key of a call, from the node's inputs; absent: one limit for every call. (A method signature, so the function
   * may type its parameter as the node's inputs: `({ tenantId }: { tenantId: string }) => tenantId`.)
   */
  key?(inputs: Readonly<Record<string, any>>): string | number;
  /** Calls started per window (an integer ≥ 1). */
  readonly limit: number;
  /** The window: milliseconds or a duration string (`"1s"`, `"1m"`). */
  readonly per: Duration;
  /** Nodes with the same scope share the limit (one API behind several nodes); default: the node's name. */
  readonly scope?: string;
}

/**
 * A concurrency limit per key: calls of the node whose inputs give the same key share `limit` permits.
 *
 * @example
 * ```ts
 * const perTenant: NodeConcurrency = { key: ({ tenantId }) => String(tenantId), limit: 2 };
 * ```
 */
export interface NodeConcurrency {
  /**
   * The key of a call, from the node's inputs by their names in the graph. (A method signature, so the function may
   * type its parameter as the node's inputs: `({ tenantId }: { tenantId: string }) => tenantId`.)
   */
  key(inputs: Readonly<Record<string, any>>): string | number;
  /** Calls at once per key (an integer ≥ 1). */
  readonly limit: number;
  /** Nodes with the same scope share the limit; default: the node's name. */
  readonly scope?: string;
}

/**
 * The function a node wraps: one object of resolved inputs and the {@link NodeContext}.
 *
 * @example
 * ```ts
 * const fn: NodeFunction = ({ text }) => String(text).length;
 * ```
 */
export type NodeFunction = (inputs: any, ctx: NodeContext) => unknown;

interface FunctionSpec extends BaseSpec {
  readonly fn: NodeFunction;
  readonly mode: ExecutionMode;
  /** Keyed by original input name. */
  readonly schemas: Readonly<Record<string, z.ZodType>> | undefined;
  /** Keyed by original input name: explicit defaults (array form). */
  readonly defaults: Readonly<Record<string, unknown>>;
  /** Original names whose default lives in the destructuring pattern or the zod schema. */
  readonly implicitDefaults: ReadonlySet<string>;
  readonly outputKind: "none" | "single" | "many";
  /** Keyed by original output name. */
  readonly outputSchemas: Readonly<Record<string, z.ZodType>> | undefined;
  readonly cache: boolean;
  readonly cacheKey: ((inputs: Readonly<Record<string, unknown>>) => unknown) | undefined;
  readonly retry: RetryOptions | undefined;
  readonly timeoutMs: number | undefined;
  readonly concurrency: NodeConcurrency | number | undefined;
  readonly rateLimit: NodeRateLimit | undefined;
  /** Set for a frames node: the in-flight window. */
  readonly frames: { readonly window: number } | undefined;
  readonly gather: boolean;
}

/**
 * A node that wraps a plain function. Create with {@link node}. Immutable: `withName`, `withInputs`,
 * `withOutputs` return new nodes.
 *
 * @example
 * ```ts
 * const embed = node({ output: "embedding" }, async function embed({ text }: { text: string }) { return [text.length]; });
 * embed.inputs;  // ["text"]
 * embed.outputs; // ["embedding"]
 * ```
 */
export class FunctionNode<
  Name extends string = any,
  In = any,
  Out = any,
  Flags = Empty,
> extends BaseNode<FunctionSpec> {
  readonly kind = "function" as const;
  readonly nodeType = "function" as const;
  /** Phantom (type-level only): the node's name, inputs and outputs as types. */
  declare readonly "~types": NodeTypes<Name, In, Out> & Flags;
  #hash: string | undefined;
  readonly #identityInputs: boolean;

  /** @internal Use {@link node}. */
  constructor(spec: FunctionSpec) {
    super(spec);
    this.#identityInputs = spec.inputs.every((p) => p.name === p.original);
  }

  protected rebuild(spec: FunctionSpec): this {
    return new FunctionNode(spec) as this;
  }

  /** A copy of this node with another name. */
  override withName<const N extends string>(name: N): NoInfer<FunctionNode<N, In, Out, Flags>> {
    return super.withName(name) as FunctionNode<N, In, Out, Flags>;
  }
  /** A copy with inputs renamed (`{ old: "new" }`); all renames of one call apply at once, so `{ a: "b", b: "a" }` swaps. */
  override withInputs<const M extends RenamesFor<In, M>>(
    renames: M,
  ): NoInfer<FunctionNode<Name, RenameKeys<In, M>, Out, Flags>> {
    return super.withInputs(renames) as FunctionNode<Name, RenameKeys<In, M>, Out, Flags>;
  }
  /** A copy with outputs renamed (`{ old: "new" }`). */
  override withOutputs<const M extends RenamesFor<Out, M>>(
    renames: M,
  ): NoInfer<FunctionNode<Name, In, RenameKeys<Out, M>, Flags>> {
    return super.withOutputs(renames) as FunctionNode<Name, In, RenameKeys<Out, M>, Flags>;
  }

  /** sync, async, sync-generator or async-generator. */
  get mode(): NodeMode {
    return this.spec.mode;
  }
  /** True for async functions and async generators. */
  get isAsync(): boolean {
    return this.spec.mode === "async" || this.spec.mode === "async-generator";
  }
  /** True for generator functions (they stream chunks). */
  get isStreaming(): boolean {
    return this.spec.mode === "sync-generator" || this.spec.mode === "async-generator";
  }
  get cache(): boolean {
    return this.spec.cache;
  }
  /** The user's cache key function (`node({ cacheKey })`), if any. */
  get cacheKey(): ((inputs: Readonly<Record<string, unknown>>) => unknown) | undefined {
    return this.spec.cacheKey;
  }
  /** Set when the node's yields are frames (`node({ frames })`): the in-flight window. */
  get frames(): { readonly window: number } | undefined {
    return this.spec.frames;
  }
  /** True when the node reads a frames pipeline's per-frame values as whole lists (`node({ gather: true })`). */
  get gather(): boolean {
    return this.spec.gather;
  }
  get retry(): RetryOptions | undefined {
    return this.spec.retry;
  }
  get timeoutMs(): number | undefined {
    return this.spec.timeoutMs;
  }
  /** The node's concurrency limit (see {@link NodeOptions.concurrency}), if it has one. */
  get concurrency(): NodeConcurrency | number | undefined {
    return this.spec.concurrency;
  }
  /** The node's rate limit (see {@link NodeOptions.rateLimit}), if it has one; its `per` in milliseconds. */
  get rateLimit(): NodeRateLimit | undefined {
    return this.spec.rateLimit;
  }
  /** The wrapped function. */
  get fn(): NodeFunction {
    return this.spec.fn;
  }

  /** True when the input has a default (explicit, in the destructuring pattern, or from its zod schema). */
  hasDefault(input: string): boolean {
    const original = this.originalInput(input);
    return (
      original !== undefined &&
      (Object.hasOwn(this.spec.defaults, original) || this.spec.implicitDefaults.has(original))
    );
  }

  /**
   * The default to pass for an input, or `undefined` when the function applies it itself (pattern and zod
   * defaults) or there is none. Explicit defaults are cloned so runs never share mutable defaults.
   */
  defaultValue(input: string): { readonly value: unknown } | undefined {
    const original = this.originalInput(input);
    if (original === undefined || !Object.hasOwn(this.spec.defaults, original)) return undefined;
    return { value: structuredClone(this.spec.defaults[original]) };
  }

  /** sha256 of the function source and the node's configuration (used for caching and graph versions). */
  get definitionHash(): string {
    this.#hash ??= sha256(
      stableStringify({
        kind: "function",
        source: Function.prototype.toString.call(this.spec.fn),
        name: this.spec.name,
        inputs: this.spec.inputs,
        outputs: this.spec.outputs,
        defaults: this.spec.defaults,
        // Schemas are configuration too: a changed zod default or type must change the hash (cache keys).
        schemas: schemaFingerprints(this.spec.schemas),
        outputSchemas: schemaFingerprints(this.spec.outputSchemas),
        cache: this.spec.cache,
        // Only when set, so the hashes of nodes without one stay what they were.
        ...(this.spec.cacheKey === undefined ? {} : { cacheKey: this.spec.cacheKey }),
        // Frames change what the node's consumers see; the window only how many run at once (not hashed).
        frames: this.spec.frames !== undefined,
        gather: this.spec.gather,
        retry: this.spec.retry,
        timeoutMs: this.spec.timeoutMs,
      }),
    );
    return this.#hash;
  }

  /**
   * @internal The function itself when {@link invoke} would pass the inputs on unchanged (no renamed inputs, no
   * schemas): the scheduler then calls it directly.
   */
  get directCall(): NodeFunction | undefined {
    return this.#identityInputs && this.spec.schemas === undefined ? this.spec.fn : undefined;
  }

  /**
   * Calls the function with inputs keyed by public (renamed) name. Validates zod inputs first.
   * Returns whatever the function returns (a value, a Promise or an iterator); the runner drives it.
   */
  invoke(inputs: Readonly<Record<string, unknown>>, ctx: NodeContext): unknown {
    let args: Record<string, unknown>;
    if (this.#identityInputs) args = inputs as Record<string, unknown>;
    else {
      args = {};
      for (const p of this.spec.inputs) if (Object.hasOwn(inputs, p.name)) args[p.original] = inputs[p.name];
    }
    const schemas = this.spec.schemas;
    if (schemas !== undefined) {
      const parsed: Record<string, unknown> = {};
      for (const p of this.spec.inputs) {
        const schema = schemas[p.original]!;
        const result = schema.safeParse(args[p.original]);
        if (!result.success) {
          throw new TypeError(
            `Input '${p.name}' of node '${this.name}' is invalid: ${result.error.issues.map((i) => i.message).join("; ")}`,
          );
        }
        parsed[p.original] = result.data;
      }
      args = parsed;
    }
    return this.spec.fn(args, ctx);
  }

  /**
   * Maps a finished function's return value to outputs keyed by public name, checking arity and output schemas.
   * Throws a TypeError with the node name on a mismatch.
   */
  collectOutputs(returned: unknown): Record<string, unknown> {
    const names = this.outputs;
    if (names.length === 0) return {};
    const list = this.outputValues(returned);
    const values: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) values[names[i]!] = list[i];
    return values;
  }

  /**
   * @internal The same checks as {@link collectOutputs}, with the values as a list in `outputs` order. The
   * scheduler's hot path: no object keyed by this node's own names, whose shape no other node shares.
   */
  outputValues(returned: unknown): unknown[] {
    const { outputs, outputKind, outputSchemas } = this.spec;
    if (outputKind === "none") return [];
    let values: unknown[];
    if (outputKind === "single") values = [returned];
    else if (Array.isArray(returned)) {
      if (returned.length !== outputs.length) {
        throw new TypeError(
          `Node '${this.name}' has ${outputs.length} outputs but returned ${returned.length} values.\n  → Outputs: ${outputs.map((p) => `'${p.name}'`).join(", ")}`,
        );
      }
      values = returned.slice();
    } else if (typeof returned === "object" && returned !== null) {
      const record = returned as Record<string, unknown>;
      const missing = outputs.filter((p) => !Object.hasOwn(record, p.original));
      if (missing.length > 0) {
        throw new TypeError(
          `Node '${this.name}' has ${outputs.length} outputs but its returned object lacks ${missing.map((p) => `'${p.original}'`).join(", ")}.`,
        );
      }
      values = outputs.map((p) => record[p.original]);
    } else {
      throw new TypeError(
        `Node '${this.name}' has ${outputs.length} outputs and must return an array or an object keyed by output name, but returned ${returned === null ? "null" : typeof returned}.`,
      );
    }
    if (outputSchemas !== undefined) {
      for (let i = 0; i < outputs.length; i++) {
        const p = outputs[i]!;
        const schema = outputSchemas[p.original];
        if (schema === undefined) continue;
        const result = schema.safeParse(values[i]);
        if (!result.success) {
          throw new TypeError(
            `Output '${p.name}' of node '${this.name}' does not match its outputSchema: ${result.error.issues.map((i) => i.message).join("; ")}`,
          );
        }
        values[i] = result.data;
      }
    }
    return values;
  }

  /** @internal zod schema of an input (by public name), if declared. */
  inputSchema(input: string): z.ZodType | undefined {
    const original = this.originalInput(input);
    return original === undefined ? undefined : this.spec.schemas?.[original];
  }

  /** @internal zod schema of an output (by public name), if declared. */
  outputSchema(output: string): z.ZodType | undefined {
    const original = this.spec.outputs.find((p) => p.name === output)?.original;
    return original === undefined ? undefined : this.spec.outputSchemas?.[original];
  }
}

function isSchemaRecord(value: unknown): value is Readonly<Record<string, z.ZodType>> {
  return isPlainRecord(value);
}

/** Reads inputs from options or from the function's destructured parameter. Shared with gates. */
export function resolveInputs(
  kind: string,
  name: string,
  inputs: NodeOptions["inputs"],
  fn: NodeFunction,
): { ports: Port[]; implicitDefaults: Set<string>; schemas: Record<string, z.ZodType> | undefined } {
  const implicitDefaults = new Set<string>();
  if (inputs !== undefined && !Array.isArray(inputs) && !isSchemaRecord(inputs)) {
    throw new GraphConfigError(
      `The inputs of ${kind} '${name}' must be an array of names or a record of zod schemas, got ${describeValue(inputs)}.\n  How to fix: inputs: ["text"], inputs: { text: z.string() }, or leave inputs out to read them from a destructured first parameter.`,
      { where: name },
    );
  }
  if (isSchemaRecord(inputs)) {
    const schemas: Record<string, z.ZodType> = {};
    for (const [key, schema] of Object.entries(inputs)) {
      if (!isZodSchema(schema)) {
        throw new GraphConfigError(
          `Input '${key}' of ${kind} '${name}' is not a zod schema.\n  How to fix: use z.string(), z.number()… or pass inputs as an array of names.`,
          {
            where: name,
          },
        );
      }
      schemas[key] = schema;
      if (schema.safeParse(undefined).success) implicitDefaults.add(key);
    }
    return { ports: Object.keys(inputs).map((n) => ({ name: n, original: n })), implicitDefaults, schemas };
  }
  if (Array.isArray(inputs)) {
    return {
      ports: (inputs as readonly string[]).map((n) => ({ name: n, original: n })),
      implicitDefaults,
      schemas: undefined,
    };
  }
  const parsed = parseDestructuredParams(fn as never);
  if (!parsed.ok) {
    throw new GraphConfigError(
      `Cannot read the inputs of ${kind} '${name}': ${parsed.reason}.\n  How to fix: destructure the first parameter (({ a, b }) => …) or pass inputs: ["a", "b"].`,
      { where: name },
    );
  }
  for (const p of parsed.params) if (p.hasDefault) implicitDefaults.add(p.name);
  return {
    ports: parsed.params.map((p) => ({ name: p.name, original: p.name })),
    implicitDefaults,
    schemas: undefined,
  };
}

/** Resolves `options.name ?? fn.name`, with a clear error when neither exists. */
export function resolveName(kind: string, name: string | undefined, fn: { readonly name: string }): string {
  if (name !== undefined && typeof name !== "string") {
    throw new GraphConfigError(
      `A ${kind}'s name must be a string, got ${describeValue(name)}.\n  How to fix: pass { name: "…" }.`,
    );
  }
  if (name === "") {
    throw new GraphConfigError(
      `A ${kind} was given an empty name.\n  How to fix: pass a non-empty { name: "…" } or leave name out to use the function's own name.`,
    );
  }
  const resolved: unknown = name ?? fn.name;
  if (typeof resolved !== "string" || resolved === "") {
    throw new GraphConfigError(
      `A ${kind} needs a name, and its function is anonymous.\n  How to fix: pass { name: "…" } or use a named function (function embed(…) {…}).`,
    );
  }
  return resolved;
}

/**
 * Creates a {@link FunctionNode} from a plain function. Inputs come from `options.inputs` or the function's
 * destructured first parameter; outputs from `options.output`.
 *
 * @example
 * ```ts
 * import { node } from "@graph/core";
 * const split = node({ name: "split", inputs: ["x"], output: ["first", "second"] }, ({ x }) => [x, x + 1]);
 * const log = node({ inputs: ["msg"] }, function log({ msg }) { console.log(msg); });
 * const embed = node({ output: "embedding" }, async ({ text }: { text: string }) => [text.length]);
 * ```
 */
export function node<
  const Name extends string = string,
  const O extends string | readonly string[] = never,
  const Inputs extends readonly string[] | SchemaRecord = never,
  const D extends Readonly<Record<string, unknown>> = Empty,
  const S extends z.ZodType | SchemaRecord = never,
  const Fr extends boolean | FramesOptions = false,
  const Ga extends boolean = false,
  // The default repeats the constraint: TypeScript reads the function's contextual type from it.
  F extends NodeFn<ParamFor<Inputs>, NodeContext, ReturnHint<O>> = NodeFn<ParamFor<Inputs>, NodeContext, ReturnHint<O>>,
>(
  options: NodeOptions & {
    readonly name?: Name;
    readonly output?: O;
    readonly inputs?: Inputs;
    readonly defaults?: D;
    readonly outputSchema?: S;
    readonly frames?: Fr;
    readonly gather?: Ga;
  },
  fn: F,
): NoInfer<
  FunctionNode<
    Name,
    InputsFrom<Inputs, ParamOf<F>, keyof D>,
    OutputsWithSchema<FrameOutputs<Fr, O, ReturnType<F>>, S>,
    NodeFlags<Fr, Ga>
  >
>;
export function node(options: NodeOptions, fn: NodeFunction): FunctionNode {
  if (!isPlainRecord(options)) {
    throw new GraphConfigError(
      `node() expects an options object as its first argument, got ${describeValue(options)}.\n  How to fix: node({ output: "x" }, fn) — pass {} when there is nothing to configure.`,
    );
  }
  if (typeof fn !== "function") {
    throw new GraphConfigError(
      `node() expects a function as its second argument, got ${describeValue(fn)}.\n  How to fix: node({ output: "x" }, ({ text }) => …).`,
    );
  }
  const name = resolveName("node", options.name, fn);
  checkNodeOptions(name, options);
  const { ports, implicitDefaults, schemas } = resolveInputs("node", name, options.inputs, fn);
  const defaults = { ...(options.defaults ?? {}) };
  for (const key of Object.keys(defaults)) {
    if (!ports.some((p) => p.original === key)) {
      throw new GraphConfigError(
        `Node '${name}' has a default for '${key}', which is not one of its inputs (${ports.map((p) => `'${p.name}'`).join(", ") || "none"}).`,
        { where: name },
      );
    }
  }
  const outputNames =
    options.output === undefined ? [] : typeof options.output === "string" ? [options.output] : [...options.output];
  // `output: []` declares no outputs: a side-effect node, like leaving `output` out.
  const outputKind = outputNames.length === 0 ? "none" : typeof options.output === "string" ? "single" : "many";
  let outputSchemas: Record<string, z.ZodType> | undefined;
  if (options.outputSchema !== undefined) {
    if (isZodSchema(options.outputSchema)) {
      if (outputNames.length !== 1) {
        throw new GraphConfigError(
          `Node '${name}' has ${outputNames.length} outputs; give outputSchema as a record keyed by output name.`,
          { where: name },
        );
      }
      outputSchemas = { [outputNames[0]!]: options.outputSchema };
    } else {
      outputSchemas = { ...(options.outputSchema as Record<string, z.ZodType>) };
      for (const key of Object.keys(outputSchemas)) {
        if (!outputNames.includes(key)) {
          throw new GraphConfigError(
            `Node '${name}' has an outputSchema for '${key}', which is not one of its outputs.`,
            { where: name },
          );
        }
      }
    }
  }
  const mode = detectMode(fn as never);
  const frames = framesSpec(name, options, mode, outputKind);
  return new FunctionNode({
    name,
    inputs: ports,
    outputs: outputNames.map((n) => ({ name: n, original: n })),
    history: [],
    fn,
    mode,
    schemas,
    defaults,
    implicitDefaults,
    outputKind,
    outputSchemas,
    cache: options.cache ?? false,
    cacheKey: options.cacheKey,
    retry: options.retry,
    timeoutMs: options.timeoutMs,
    concurrency: options.concurrency,
    // The window is kept in milliseconds: the runtime reads `rateLimit.per` as a number.
    rateLimit:
      options.rateLimit === undefined
        ? undefined
        : { ...options.rateLimit, per: parseDuration(options.rateLimit.per, `rate limit window of node '${name}'`) },
    frames,
    gather: options.gather ?? false,
  });
}
