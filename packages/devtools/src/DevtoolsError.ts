import { TaggedError } from "@graph/errors";

/**
 * What kind of failure a {@link DevtoolsError} is; the server answers 400, 404 or 409 for it.
 * `invalid`: the request can't be done as asked (a bad answer, a missing input, nothing to answer);
 * `not-found`: no such workflow, graph or checkpoint; `conflict`: the workflow is in a state that forbids it
 * (running elsewhere, already ended).
 */
export type DevtoolsErrorKind = "invalid" | "not-found" | "conflict";

/**
 * A devtools operation could not be done: not listening yet, no runner or checkpointer connected, an unknown
 * graph or workflow, nothing to answer, an answer its schema refuses. The message says what and how to fix it.
 * The page shows it as is; `issues` lists a refused answer's or input's problems one per line.
 *
 * @example
 * ```ts
 * try { devtools.url; } catch (e) { if (isDevtoolsError(e)) console.error(e.message); }
 * ```
 */
export class DevtoolsError extends TaggedError("DevtoolsError")<{
  readonly kind: DevtoolsErrorKind;
  readonly issues: readonly string[];
}> {
  constructor(
    message: string,
    options: { readonly kind?: DevtoolsErrorKind; readonly issues?: readonly string[] } = {},
  ) {
    super({ message, kind: options.kind ?? "invalid", issues: options.issues ?? [] });
  }
}

/** True for a {@link DevtoolsError} (also across duplicated package copies). */
export const isDevtoolsError = (value: unknown): value is DevtoolsError => DevtoolsError.is(value);
