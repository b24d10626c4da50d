import type { Usage } from "@graph/core";
import type { EngineHost } from "./host.js";
import { checkBudget, fail } from "./options.js";
import type { Execution } from "./outcome.js";
import { addUsage } from "./usage.js";

/**
 * The `ctx` argument of node functions. A class (not an object literal with getters) keeps the hot path cheap.
 * Plain nodes share their run's signal; nodes with a timeout get their own controller (a timeout aborts one node).
 */
export class NodeCtx {
  readonly #host: EngineHost;
  readonly #ex: Execution;
  readonly #controller: AbortController | undefined;
  readonly attempt: number;
  #chunks = 0;
  constructor(host: EngineHost, ex: Execution, controller: AbortController | undefined, attempt: number) {
    this.#host = host;
    this.#ex = ex;
    this.#controller = controller;
    this.attempt = attempt;
  }
  get signal(): AbortSignal {
    return this.#controller === undefined ? this.#host.runSignal() : this.#controller.signal;
  }
  get stopRequested(): boolean {
    return this.#host.config.control.stopRequested;
  }
  get workflowId(): string {
    return this.#host.config.workflowId;
  }
  get runId(): string {
    return this.#host.config.runId;
  }
  get nodeName(): string {
    return this.#ex.node.name;
  }
  /**
   * Workflow, node and the versions of the inputs it consumed. Versions are the indexes of the steps that wrote the
   * inputs: the same after a restore, new whenever the node runs again on new inputs (a loop, a new turn).
   */
  get idempotencyKey(): string {
    const ex = this.#ex;
    let key = `${this.#host.config.workflowId}:${ex.node.name}:`;
    for (const v of ex.list) key += `${v}.`;
    if (ex.responseVersion !== undefined) key += `${ex.responseVersion}.`;
    return key;
  }
  usage(spent: Omit<Usage, "wallMs">): void {
    checkBudget(`ctx.usage() in node '${this.#ex.node.name}'`, "spent", spent ?? null, "a usage report, e.g.");
    if (Object.hasOwn(spent, "wallMs"))
      fail(
        `ctx.usage() in node '${this.#ex.node.name}'`,
        "spent.wallMs",
        (spent as Usage).wallMs,
        "left out (the runner measures wall time)",
      );
    this.#ex.usage = addUsage(this.#ex.usage, spent);
  }
  emit(chunk: unknown): void {
    this.#host.event("StreamingChunk", { nodeName: this.#ex.node.name, chunk, index: this.#chunks++ }, this.#ex.spanId);
  }
}
