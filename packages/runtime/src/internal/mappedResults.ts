import type { UsageRecord } from "@graph/checkpoint";
import type { GraphNode } from "@graph/core";
import { type PauseInfo, RunResult, type RunStatus } from "../RunResult.js";
import type { EngineHost } from "./host.js";
import { itemFailure, type Outcome } from "./outcome.js";
import { sumUsage } from "./usage.js";

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
  /** The first item that paused (a budget pause reaches map items): the node pauses with it. */
  #pausedAt = -1;
  #pause: PauseInfo | undefined;
  /** What the items spent (their results' totals). */
  usage: UsageRecord | undefined;

  constructor(n: GraphNode, total: number) {
    this.#n = n;
    for (const outer of n.outputs) this.#columns.set(n.innerOutput(outer)!, new Array<unknown>(total));
  }

  add(i: number, r: RunResult): void {
    this.usage = sumUsage(this.usage, r.usage);
    for (const [inner, column] of this.#columns) column[i] = r.values[inner];
    if (r.status === "failed" && (this.#failedAt < 0 || i < this.#failedAt)) {
      this.#failedAt = i;
      this.#failure = r.error;
    }
    if (r.status === "stopped") this.#stopped = true;
    if (r.status === "paused" && (this.#pausedAt < 0 || i < this.#pausedAt)) {
      this.#pausedAt = i;
      this.#pause = r.pause;
    }
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
    const paused = !failed && this.#pause !== undefined;
    const status: RunStatus = failed ? "failed" : paused ? "paused" : stopped ? "stopped" : "completed";
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
    if (paused) {
      const pause = this.#pause!;
      return {
        kind: "paused",
        nested,
        childWorkflowId: parentId,
        pause: { ...pause, nodeName: `${n.name}/${this.#pausedAt}/${pause.nodeName}` },
      };
    }
    if (stopped && !n.completeOnStop) return { kind: "stopped", nested, childWorkflowId: parentId };
    return { kind: "completed", outputs, nested, childWorkflowId: parentId, truncated: stopped };
  }
}
