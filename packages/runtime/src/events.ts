import type { Target } from "@graph/core";
import type { RunStatus } from "./RunResult.js";

/**
 * Fields every event carries. Nested runs and map items form a tree through `spanId` / `parentSpanId`.
 *
 * @example
 * ```ts
 * const base: EventBase = { runId: "r1", workflowId: "wf", spanId: "s1", parentSpanId: undefined, timestamp: Date.now() };
 * ```
 */
export interface EventBase {
  readonly runId: string;
  readonly workflowId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly timestamp: number;
}

/**
 * Every event the runtime emits, discriminated by `type`.
 *
 * @example
 * ```ts
 * for await (const ev of runner.stream(graph, { values })) {
 *   if (ev.type === "StreamingChunk") process.stdout.write(String(ev.chunk));
 *   if (ev.type === "NodeEnd") console.log(ev.nodeName, ev.durationMs);
 * }
 * ```
 */
export type GraphEvent =
  | (EventBase & {
      readonly type: "RunStart";
      readonly graphName: string | undefined;
      readonly depth: number;
      /** The graph's `definitionHash` (changes when a node or the wiring changes). */
      readonly definitionHash: string;
    })
  | (EventBase & {
      readonly type: "RunEnd";
      readonly status: RunStatus;
      readonly durationMs: number;
      readonly error?: unknown;
    })
  | (EventBase & { readonly type: "SuperstepStart"; readonly superstep: number; readonly nodes: readonly string[] })
  | (EventBase & {
      readonly type: "NodeStart";
      readonly nodeName: string;
      /** "function", "route", "branch", "interrupt" or "graph". */
      readonly nodeType: string;
      readonly inputs: Readonly<Record<string, unknown>>;
    })
  | (EventBase & {
      readonly type: "NodeEnd";
      readonly nodeName: string;
      /** "stopped" when a stop cut the node off (it produced nothing). */
      readonly status: "completed" | "stopped";
      readonly outputs: Readonly<Record<string, unknown>>;
      readonly durationMs: number;
      readonly cached: boolean;
      readonly replayed: boolean;
      readonly truncated: boolean;
    })
  | (EventBase & {
      readonly type: "NodeError";
      readonly nodeName: string;
      readonly error: unknown;
      readonly attempt: number;
      readonly willRetry: boolean;
    })
  | (EventBase & {
      readonly type: "StreamingChunk";
      readonly nodeName: string;
      readonly chunk: unknown;
      readonly index: number;
    })
  | (EventBase & {
      readonly type: "RouteDecision";
      readonly gate: string;
      /** The chosen target (or END) for `route`/`ifElse`; a list only for `multiTarget` routes; null: no decision. */
      readonly decision: Target | readonly Target[] | null;
      readonly replayed: boolean;
    })
  | (EventBase & {
      readonly type: "Paused";
      /**
       * `"human_input"` for an interrupt; `"map_dispatched"` when a mapped node's items went to a `mapDispatcher`;
       * `"sleep"` for a sleep; `"event"` for a `waitFor`.
       */
      readonly reason: "human_input" | "map_dispatched" | "sleep" | "event" | "budget";
      readonly nodeName: string;
      readonly value: unknown;
      readonly responseKey: string;
      /** Epoch ms when the pause ends by itself (a sleep's wake-up, a timeout); absent when it waits only for an answer. */
      readonly wakeAt?: number;
    })
  | (EventBase & {
      readonly type: "TimerFired";
      /** The due time the store held (epoch ms): a sleep's wake-up, a timeout's deadline or a delayed start. */
      readonly dueAt: number;
      /** When this runner resumed the workflow for it (epoch ms, the runner's clock). */
      readonly firedAt: number;
      /** `firedAt - dueAt`: how late the resume was (a runner that was down reports the whole outage). */
      readonly lateMs: number;
    })
  | (EventBase & { readonly type: "StopRequested"; readonly info: unknown })
  | (EventBase & { readonly type: "CacheHit"; readonly nodeName: string })
  | (EventBase & { readonly type: "CheckpointSaved"; readonly superstep: number; readonly nodeName: string })
  | (EventBase & {
      readonly type: "MapProgress";
      readonly nodeName: string;
      readonly completed: number;
      readonly total: number;
    })
  | (EventBase & { readonly type: "Warning"; readonly message: string; readonly unknownInputs?: readonly string[] })
  /**
   * A call of a node with a limit (`node({ concurrency })` or `rateLimit`) waits for a permit of its `key` (`""` for
   * one limit for every call): in the runner (`active` calls hold the `limit` permits, `queued` wait, this one
   * included), or in the store, where every runner on it shares them (counts unknown there).
   */
  | (EventBase & {
      readonly type: "NodeWaiting";
      readonly nodeName: string;
      readonly limitKind: "concurrency" | "rate";
      readonly where: "runner" | "store";
      readonly key: string;
      readonly limit: number;
      readonly active?: number;
      readonly queued?: number;
    })
  /**
   * Only in `start().events`: its buffer (`eventBufferSize`, default 1000) was full and nobody read it, so the
   * `count` oldest events were dropped; this marker stands in their place (a run never waits on its handle).
   */
  | (EventBase & { readonly type: "EventsDropped"; readonly count: number });

/**
 * The `type` of an event.
 *
 * @example
 * ```ts
 * const t: GraphEventType = "NodeEnd";
 * ```
 */
export type GraphEventType = GraphEvent["type"];

/**
 * Receives every event of every run of a runner. A failing processor never fails a run.
 *
 * @example
 * ```ts
 * const logger: EventProcessor = { onEvent: (ev) => { if (ev.type === "NodeEnd") console.log(ev.nodeName); } };
 * const runner = new Runner({ eventProcessors: [logger] });
 * ```
 */
export interface EventProcessor {
  onEvent(event: GraphEvent): void | Promise<void>;
  shutdown?(): void | Promise<void>;
  /**
   * Optional: wraps every call of a node's function (each attempt). It must call `call` exactly once, synchronously,
   * and return what it returns. Tracing uses it to make the node's span the active context while the node runs, so
   * instrumented clients called inside the node nest under it. Runs after the node's `NodeStart` event.
   */
  aroundNode?<T>(node: NodeCall, call: () => T): T;
}

/**
 * Which node execution a call belongs to: `spanId` is the one of its `NodeStart` event.
 *
 * @example
 * ```ts
 * const tracer: EventProcessor = { onEvent() {}, aroundNode: (node, call) => { console.log(node.nodeName); return call(); } };
 * ```
 */
export interface NodeCall {
  readonly workflowId: string;
  readonly runId: string;
  readonly spanId: string;
  readonly nodeName: string;
}
