import type { GraphResult, PathValue, PauseOf, ResultPath, RunStatus, Usage } from "@graph/core";

export type { RunStatus };

/**
 * Why and where a run paused. Resume by running again with `{ [responseKey]: answer }`.
 *
 * @example
 * ```ts
 * if (result.pause) await runner.run(graph, { workflowId: result.workflowId, values: { [result.pause.responseKey]: "yes" } });
 * ```
 */
export type PauseInfo<N extends string = string, V = unknown, K extends string = string> = PauseOf<N, V, K>;

/**
 * The result of a run. `values` holds every produced output (not the inputs) and, under each GraphNode's name,
 * that subgraph's own nested `RunResult`. Use `get("rag/docs")` to navigate.
 *
 * @example
 * ```ts
 * const result = await runner.run(graph, { values: { query: "hi" } });
 * result.status;          // "completed"
 * result.get("answer");   // a top-level output
 * result.get("rag/docs"); // an output of the nested graph 'rag'
 * ```
 */
export class RunResult<Out = any, Pause = PauseInfo> implements GraphResult<Out, Pause> {
  /** Phantom (type-level only): the outputs `get` paths are checked against. */
  declare readonly "~outputs"?: Out;
  readonly status: RunStatus;
  /** Typed by the graph: every produced value may be absent (a failed, stopped or paused run). */
  readonly values: Readonly<Partial<Out>>;
  readonly workflowId: string | undefined;
  readonly runId: string;
  readonly pause: Pause | undefined;
  readonly error: unknown;
  /**
   * What the run spent in its current turn, nested runs and map items included: the `ctx.usage` reports (tokens,
   * cost, calls) and, under a `wallMs` budget, its wall time. Undefined when nothing was reported.
   */
  readonly usage: Usage | undefined;

  constructor(fields: {
    status: RunStatus;
    values: Readonly<Record<string, unknown>>;
    workflowId: string | undefined;
    runId: string;
    pause?: PauseInfo | undefined;
    error?: unknown;
    usage?: Usage | undefined;
  }) {
    this.status = fields.status;
    this.values = fields.values as Readonly<Partial<Out>>;
    this.workflowId = fields.workflowId;
    this.runId = fields.runId;
    this.pause = fields.pause as Pause | undefined;
    this.error = fields.error;
    this.usage = fields.usage;
  }

  /**
   * The value at a `/`-separated path, descending through nested results; `undefined` when absent. The path is
   * checked against the graph's outputs (`"rag/docs"` follows the GraphNode `rag`).
   */
  get<const P extends string>(path: ResultPath<Out, P>): PathValue<Out, P> | undefined {
    return locate(this, path)?.value as PathValue<Out, P> | undefined;
  }

  /** True when {@link RunResult.get} would find a value at the path. */
  has(path: string): boolean {
    return locate(this, path) !== undefined;
  }

  /** A plain-object form (nested results converted too) for logging or JSON responses. */
  toJSON(): Record<string, unknown> {
    const values: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(this.values as Record<string, unknown>))
      values[k] = v instanceof RunResult ? v.toJSON() : v;
    const out: Record<string, unknown> = {
      status: this.status,
      values,
      workflowId: this.workflowId,
      runId: this.runId,
    };
    if (this.pause !== undefined) out.pause = this.pause;
    if (this.usage !== undefined) out.usage = this.usage;
    if (this.error !== undefined) {
      const e = this.error as { _tag?: string; message?: string; name?: string };
      out.error = { tag: e._tag, name: e.name, message: e.message ?? String(this.error) };
    }
    return out;
  }
}

/** Walks a `/` path through nested results; undefined when some segment is absent. */
function locate(root: object, path: string): { readonly value: unknown } | undefined {
  let current: unknown = root;
  for (const segment of path.split("/")) {
    const values = current instanceof RunResult || isRunResultLike(current) ? (current as RunResult).values : undefined;
    if (values === undefined || !Object.hasOwn(values, segment)) return undefined;
    current = values[segment];
  }
  return { value: current };
}

function isRunResultLike(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { status?: unknown }).status === "string" &&
    typeof (value as { values?: unknown }).values === "object"
  );
}

/**
 * The result of `runner.map`: one `RunResult` per item, and each output collected into an array in item order.
 *
 * @example
 * ```ts
 * const batch = await runner.map(graph, { values: { x: [1, 2, 3] }, mapOver: ["x"] });
 * batch.values.doubled; // [2, 4, 6]
 * ```
 */
export interface MapResult<Out = any> {
  readonly status: RunStatus;
  readonly results: readonly RunResult<Out>[];
  readonly values: { readonly [K in keyof Out]: readonly Out[K][] };
}
