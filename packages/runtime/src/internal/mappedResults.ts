import type { GraphNode } from "@graph/core";
import { RunResult, type RunStatus } from "../RunResult.js";
import type { EngineHost } from "./host.js";
import { itemFailure, type Outcome } from "./outcome.js";

/**
 * What a mapped node keeps of its items' runs: the columns of their outputs, the first failure and whether one
 * stopped — not the items' RunResults (a million of them would not fit in memory).
 */
export class MappedResults {
  readonly #n: GraphNode;
  readonly #columns = new Map<string, unknown[]>();
  #failedAt = -1;
  #failure: unknown;
  #stopped = false;

  constructor(n: GraphNode, total: number) {
    this.#n = n;
    for (const outer of n.outputs) this.#columns.set(n.innerOutput(outer)!, new Array<unknown>(total));
  }

  add(i: number, r: RunResult): void {
    for (const [inner, column] of this.#columns) column[i] = r.values[inner];
    if (r.status === "failed" && (this.#failedAt < 0 || i < this.#failedAt)) {
      this.#failedAt = i;
      this.#failure = r.error;
    }
    if (r.status === "stopped") this.#stopped = true;
  }

  /** The mapped node's outputs are columns of the items' values; the first failed item fails the node. */
  outcome(host: EngineHost, parentId: string): Outcome {
    const n = this.#n;
    const outputs: Record<string, unknown> = {};
    const innerValues: Record<string, unknown[]> = {};
    for (const outer of n.outputs) {
      const inner = n.innerOutput(outer)!;
      const column = this.#columns.get(inner)!;
      outputs[outer] = column;
      innerValues[inner] = column;
    }
    const failed = this.#failedAt >= 0;
    const stopped = this.#stopped;
    const status: RunStatus = failed ? "failed" : stopped ? "stopped" : "completed";
    const nested = new RunResult({
      status,
      values: innerValues,
      workflowId: parentId,
      runId: host.config.runId,
      error: failed ? this.#failure : undefined,
    });
    if (failed)
      return {
        kind: "failed",
        error: itemFailure(n, this.#failedAt, this.#failure),
        nested,
        childWorkflowId: parentId,
      };
    if (stopped && !n.completeOnStop) return { kind: "stopped", nested, childWorkflowId: parentId };
    return { kind: "completed", outputs, nested, childWorkflowId: parentId, truncated: stopped };
  }
}
