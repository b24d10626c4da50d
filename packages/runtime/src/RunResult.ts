/**
 * How a run ended.
 *
 * @example
 * ```ts
 * const s: RunStatus = result.status; // "completed" | "paused" | "stopped" | "failed"
 * ```
 */
export type RunStatus = "completed" | "paused" | "stopped" | "failed";

/**
 * Why and where a run paused. Resume by running again with `{ [responseKey]: answer }`.
 *
 * @example
 * ```ts
 * if (result.pause) await runner.run(graph, { workflowId: result.workflowId, values: { [result.pause.responseKey]: "yes" } });
 * ```
 */
export interface PauseInfo {
  readonly reason: "human_input";
  /** The interrupt's path (`"review/approval"` inside a nested graph). */
  readonly nodeName: string;
  /** The value shown to the human. */
  readonly value: unknown;
  /** The name the caller must supply the answer under (after the GraphNodes' renames). */
  readonly responseKey: string;
}

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
export class RunResult {
  readonly status: RunStatus;
  readonly values: Readonly<Record<string, unknown>>;
  readonly workflowId: string | undefined;
  readonly runId: string;
  readonly pause: PauseInfo | undefined;
  readonly error: unknown;

  constructor(fields: {
    status: RunStatus;
    values: Readonly<Record<string, unknown>>;
    workflowId: string | undefined;
    runId: string;
    pause?: PauseInfo | undefined;
    error?: unknown;
  }) {
    this.status = fields.status;
    this.values = fields.values;
    this.workflowId = fields.workflowId;
    this.runId = fields.runId;
    this.pause = fields.pause;
    this.error = fields.error;
  }

  /** The value at a `/`-separated path, descending through nested results; `undefined` when absent. */
  get(path: string): unknown {
    return locate(this, path)?.value;
  }

  /** True when {@link RunResult.get} would find a value at the path. */
  has(path: string): boolean {
    return locate(this, path) !== undefined;
  }

  /** A plain-object form (nested results converted too) for logging or JSON responses. */
  toJSON(): Record<string, unknown> {
    const values: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(this.values)) values[k] = v instanceof RunResult ? v.toJSON() : v;
    const out: Record<string, unknown> = {
      status: this.status,
      values,
      workflowId: this.workflowId,
      runId: this.runId,
    };
    if (this.pause !== undefined) out.pause = this.pause;
    if (this.error !== undefined) {
      const e = this.error as { _tag?: string; message?: string; name?: string };
      out.error = { tag: e._tag, name: e.name, message: e.message ?? String(this.error) };
    }
    return out;
  }
}

/** Walks a `/` path through nested results; undefined when some segment is absent. */
function locate(root: RunResult, path: string): { readonly value: unknown } | undefined {
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
export interface MapResult {
  readonly status: RunStatus;
  readonly results: readonly RunResult[];
  readonly values: Readonly<Record<string, readonly unknown[]>>;
}
