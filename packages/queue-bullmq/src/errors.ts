/**
 * Errors of `@graph/queue-bullmq`. A worker's refusal reaches the caller of `RemoteRunner.run` as one of these;
 * a run's own failure (a `NodeExecutionError`, …) arrives as a {@link RemoteRunError} carrying the original tag.
 *
 * @module
 */
import { TaggedError, tagGuard } from "@graph/errors";

/**
 * The worker that took the job does not know a graph of that name (it was not in its `graphs`).
 *
 * @example
 * ```ts
 * const e = new UnknownGraphError({ graphName: "tickets", workflowId: "t-1", known: ["research"] });
 * e._tag; // "UnknownGraphError"
 * ```
 */
export class UnknownGraphError extends TaggedError<"UnknownGraphError"> {
  readonly _tag = "UnknownGraphError" as const;
  override readonly name = "UnknownGraphError";
  readonly graphName: string;
  readonly workflowId: string;
  readonly known: readonly string[];

  constructor(fields: { graphName: string; workflowId: string; known: readonly string[] }) {
    super(
      `Workflow '${fields.workflowId}': no worker graph is named '${fields.graphName}' (this worker knows ` +
        `${fields.known.length === 0 ? "none" : fields.known.map((n) => `'${n}'`).join(", ")}). How to fix: pass ` +
        "the graph in `new GraphWorker({ graphs: [...] })` on every worker of the queue, and give it a `name`.",
    );
    this.graphName = fields.graphName;
    this.workflowId = fields.workflowId;
    this.known = fields.known;
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
export class GraphVersionError extends TaggedError<"GraphVersionError"> {
  readonly _tag = "GraphVersionError" as const;
  override readonly name = "GraphVersionError";
  readonly graphName: string;
  readonly workflowId: string;
  /** The submitter's `definitionHash`. */
  readonly expected: string;
  /** The worker's. */
  readonly actual: string;

  constructor(fields: { graphName: string; workflowId: string; expected: string; actual: string }) {
    super(
      `Workflow '${fields.workflowId}': the worker's graph '${fields.graphName}' has definitionHash ` +
        `${fields.actual}, the submitter's has ${fields.expected}. How to fix: deploy the same version of the ` +
        "graph to the submitting process and to every worker (roll workers before submitters).",
    );
    this.graphName = fields.graphName;
    this.workflowId = fields.workflowId;
    this.expected = fields.expected;
    this.actual = fields.actual;
  }
}

/**
 * A remote run failed on its worker. `_tag` is the original error's tag (`"NodeExecutionError"`, …), so
 * `e._tag === "NodeExecutionError"` and the runtime's `isNodeExecutionError(e)` work as with a local `Runner`; the
 * original's own plain fields (`nodeName`, `workflowId`, …) are copied onto it.
 *
 * @example
 * ```ts
 * const e = new RemoteRunError({ tag: "NodeExecutionError", name: "NodeExecutionError", message: "boom" });
 * e._tag; // "NodeExecutionError"
 * ```
 */
export class RemoteRunError extends TaggedError<string> {
  readonly _tag: string;
  override readonly name: string;
  /** Set: the error came from a worker process. */
  readonly remote = true as const;

  constructor(fields: {
    tag: string;
    name: string;
    message: string;
    stack?: string;
    fields?: Record<string, unknown>;
  }) {
    super(fields.message);
    this._tag = fields.tag;
    this.name = fields.name;
    for (const [k, v] of Object.entries(fields.fields ?? {}))
      if (!(k in this)) (this as Record<string, unknown>)[k] = v;
    if (fields.stack !== undefined) this.stack = fields.stack;
  }
}

/**
 * Guard for {@link UnknownGraphError}.
 *
 * @example
 * ```ts
 * try { await remote.run(graph, { values: {} }); } catch (e) { if (isUnknownGraphError(e)) console.log(e.graphName); }
 * ```
 */
export const isUnknownGraphError = tagGuard<UnknownGraphError>("UnknownGraphError");

/**
 * Guard for {@link GraphVersionError}.
 *
 * @example
 * ```ts
 * try { await remote.run(graph, { values: {} }); } catch (e) { if (isGraphVersionError(e)) console.log(e.actual); }
 * ```
 */
export const isGraphVersionError = tagGuard<GraphVersionError>("GraphVersionError");
