import type { Graph, OutputsOf, PauseOf, PausesOf, RunStatus } from "@graph/core";
import type { InferUIMessageChunk, UIMessage } from "ai";

/**
 * `data-node-start`: a node began. `path` locates it in nested graphs and map items (`"research/2/summarize"`);
 * at the top level it equals `name`.
 *
 * @example
 * ```ts
 * const start: NodeStartData = { name: "draft", path: "draft", nodeType: "function" };
 * ```
 */
export interface NodeStartData {
  readonly name: string;
  readonly path: string;
  /** "function", "route", "branch", "interrupt" or "graph". */
  readonly nodeType: string;
}

/**
 * `data-node-end`: a node finished (`completed`), waits for an answer (`paused`: an interrupt), was cut off by a stop
 * (`stopped`) or failed for good (`failed`, with `error`).
 *
 * @example
 * ```ts
 * const end: NodeEndData = { name: "draft", path: "draft", status: "completed", durationMs: 12 };
 * ```
 */
export interface NodeEndData {
  readonly name: string;
  readonly path: string;
  readonly status: "completed" | "paused" | "stopped" | "failed";
  readonly durationMs: number;
  /** Only for `failed`: the error's tag (or name) and message, as {@link StreamOptions.errorMessage} gives it. */
  readonly error?: string;
}

/**
 * `data-state`: the values one node just produced, by name (top-level values) or by path (values of nested graphs
 * and map items, when the `select` patterns reach into them: `"research/0/summary"`).
 *
 * @example
 * ```ts
 * const state: StateData = { node: "draft", values: { draft: "Hello" } };
 * ```
 */
export interface StateData<G = any> {
  /** The path of the node that produced the values. */
  readonly node: string;
  readonly values: Partial<OutputsOfGraph<G>> & Readonly<Record<string, unknown>>;
}

/**
 * `data-node-suspense`: the run paused at an interrupt. Answer it by resuming `workflowId` with
 * `{ [responseKey]: answer }`, naming the pause with `visit` (the `@graph/react` hook's `suspense.resume(answer)`
 * does both).
 *
 * @example
 * ```ts
 * const s: SuspenseData = {
 *   nodeName: "approval",
 *   name: "approval",
 *   responseKey: "decision",
 *   value: "refund 20 €?",
 *   workflowId: "chat/local/chat-1",
 * };
 * ```
 */
export type SuspenseData<G = any> =
  SuspenseOf<PausesOfGraph<G>> extends infer S ? ([S] extends [never] ? SuspenseOf<PauseOf> : S) : never;

type SuspenseOf<P> =
  P extends PauseOf<infer N, infer V, infer K>
    ? {
        /** The interrupt that paused (what `RunResult.pause.nodeName` and the stored pause call it). */
        readonly nodeName: N;
        /** @deprecated The same as `nodeName`, kept for pages written before it: read `nodeName`. */
        readonly name: N;
        readonly responseKey: K;
        readonly value: V;
        readonly workflowId: string;
        /** Which visit of the interrupt (with a checkpointer): send it back with the answer (`resume.visit`). */
        readonly visit?: number;
      }
    : never;

/**
 * `data-run`: the run ended (last part of every stream): its status, workflow id and, when it failed, the error.
 *
 * @example
 * ```ts
 * const run: RunData = { status: "completed", workflowId: "chat-1", runId: "r1" };
 * ```
 */
export interface RunData {
  readonly status: RunStatus;
  readonly workflowId: string;
  readonly runId: string;
  readonly error?: string;
}

/**
 * The data parts a graph run streams, keyed as the AI SDK expects (`data-${key}` on the wire).
 *
 * @example
 * ```ts
 * type Parts = GraphDataParts<typeof graph>;
 * ```
 */
export type GraphDataParts<G = any> = {
  "node-start": NodeStartData;
  "node-end": NodeEndData;
  state: StateData<G>;
  "node-suspense": SuspenseData<G>;
  run: RunData;
};

/**
 * An AI SDK `UIMessage` whose data parts are a graph's: use it with `useChat<GraphUIMessage<typeof graph>>()` or
 * `readUIMessageStream<GraphUIMessage<typeof graph>>()`.
 *
 * @example
 * ```ts
 * const message: GraphUIMessage = { id: "m1", role: "assistant", parts: [{ type: "data-run", data: { status: "completed", workflowId: "w", runId: "r" } }] };
 * ```
 */
export type GraphUIMessage<G = any, Metadata = unknown> = UIMessage<Metadata, GraphDataParts<G>>;

/** One chunk of a graph's UI message stream. */
export type GraphUIMessageChunk<G = any> = InferUIMessageChunk<GraphUIMessage<G>>;

type OutputsOfGraph<G> = G extends Graph ? OutputsOf<G> : Record<string, unknown>;
type PausesOfGraph<G> = G extends Graph ? PausesOf<G> : PauseOf;
