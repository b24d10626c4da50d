/**
 * Errors of `@graph/queue-bullmq`. A worker's refusal reaches the caller of `RemoteRunner.run` as one of these;
 * a run's own failure (a `NodeExecutionError`, …) arrives as a {@link RemoteRunError} whose `remoteTag` is the
 * original's tag and whose `cause` describes the original.
 *
 * @module
 */
import { TaggedError } from "@graph/errors";

/**
 * The worker that took the job does not know a graph of that name (it was not in its `graphs`).
 *
 * @example
 * ```ts
 * const e = new UnknownGraphError({ graphName: "tickets", workflowId: "t-1", known: ["research"] });
 * e._tag; // "UnknownGraphError"
 * ```
 */
export class UnknownGraphError extends TaggedError("UnknownGraphError")<{
  readonly graphName: string;
  readonly workflowId: string;
  readonly known: readonly string[];
}> {
  constructor(fields: { graphName: string; workflowId: string; known: readonly string[] }) {
    const { graphName, workflowId, known } = fields;
    super({
      message:
        `Workflow '${workflowId}': no worker graph is named '${graphName}' (this worker knows ` +
        `${known.length === 0 ? "none" : known.map((n) => `'${n}'`).join(", ")}). How to fix: pass ` +
        "the graph in `new GraphWorker({ graphs: [...] })` on every worker of the queue, and give it a `name`.",
      graphName,
      workflowId,
      known,
    });
  }
}

/**
 * The worker knows the graph by name but has another version of it (its `definitionHash` differs): the caller and
 * the worker run different code.
 *
 * @example
 * ```ts
 * const e = new GraphVersionError({ graphName: "tickets", workflowId: "t-1", expected: "a1", actual: "b2" });
 * e._tag; // "GraphVersionError"
 * ```
 */
export class GraphVersionError extends TaggedError("GraphVersionError")<{
  readonly graphName: string;
  readonly workflowId: string;
  /** The submitter's `definitionHash`. */
  readonly expected: string;
  /** The worker's. */
  readonly actual: string;
}> {
  constructor(fields: { graphName: string; workflowId: string; expected: string; actual: string }) {
    const { graphName, workflowId, expected, actual } = fields;
    super({
      message:
        `Workflow '${workflowId}': the worker's graph '${graphName}' has definitionHash ` +
        `${actual}, the submitter's has ${expected}. How to fix: deploy the same version of the ` +
        "graph to the submitting process and to every worker (roll workers before submitters).",
      graphName,
      workflowId,
      expected,
      actual,
    });
  }
}

/**
 * The original error of a {@link RemoteRunError}, as the worker described it: an `Error` with the original's `name`,
 * `message` and `stack` (the worker's), and its own plain fields (`nodeName`, `workflowId`, …) as properties.
 *
 * @example
 * ```ts
 * const original: RemoteErrorCause = remoteError.cause;
 * console.error(original.name, original["nodeName"], original.stack);
 * ```
 */
export type RemoteErrorCause = Error & { readonly [field: string]: unknown };

/**
 * A remote run failed on its worker. `remoteTag` is the original error's tag (`"NodeExecutionError"`, …; its `name`
 * when it had none) and `cause` the original as the worker described it (name, message, the worker's stack and the
 * original's plain fields). The error's own `_tag` is `"RemoteRunError"`: a local class's guard (the runtime's
 * `isNodeExecutionError`) and `instanceof` both say no, so branch on `remoteTag` instead. The message is the
 * original's.
 *
 * @example
 * ```ts
 * try {
 *   await remote.run(graph, { values });
 * } catch (e) {
 *   if (isRemoteRunError(e) && e.remoteTag === "NodeExecutionError") console.error(e.cause["nodeName"], e.message);
 * }
 * ```
 */
export class RemoteRunError extends TaggedError("RemoteRunError")<{
  /** The original error's `_tag` (its `name` when it had none). */
  readonly remoteTag: string;
  /** Set: the error came from a worker process. */
  readonly remote: true;
  /** The original error as the worker described it. */
  readonly cause: RemoteErrorCause;
}> {
  constructor(fields: {
    tag: string;
    name: string;
    message: string;
    stack?: string;
    fields?: Record<string, unknown>;
  }) {
    const own: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(fields.fields ?? {}))
      if (key !== "message" && key !== "stack" && key !== "name") own[key] = value;
    const cause: RemoteErrorCause = Object.assign(new Error(fields.message), own, { name: fields.name });
    if (fields.stack !== undefined) cause.stack = fields.stack;
    super({ message: fields.message, remoteTag: fields.tag, remote: true, cause });
  }
}

/**
 * Guard for {@link RemoteRunError}.
 *
 * @example
 * ```ts
 * try { await remote.run(graph, { values: {} }); } catch (e) { if (isRemoteRunError(e)) console.log(e.remoteTag); }
 * ```
 */
export const isRemoteRunError = (value: unknown): value is RemoteRunError => RemoteRunError.is(value);

/**
 * Guard for {@link UnknownGraphError}.
 *
 * @example
 * ```ts
 * try { await remote.run(graph, { values: {} }); } catch (e) { if (isUnknownGraphError(e)) console.log(e.graphName); }
 * ```
 */
export const isUnknownGraphError = (value: unknown): value is UnknownGraphError => UnknownGraphError.is(value);

/**
 * Guard for {@link GraphVersionError}.
 *
 * @example
 * ```ts
 * try { await remote.run(graph, { values: {} }); } catch (e) { if (isGraphVersionError(e)) console.log(e.actual); }
 * ```
 */
export const isGraphVersionError = (value: unknown): value is GraphVersionError => GraphVersionError.is(value);
