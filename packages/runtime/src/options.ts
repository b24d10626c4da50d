/**
 * Options of the runner, of one run and of `runner.map`, and the handle `runner.start` returns. Plain types with no
 * Effect in them: the Promise API's declarations import only these.
 *
 * @module
 */
import type { Checkpoint, Checkpointer } from "@graph/checkpoint";
import type { NodeCache } from "./cache.js";
import type { EventProcessor, GraphEvent } from "./events.js";
import type { RunResult } from "./RunResult.js";

/** Options of the runner. */
export interface RunnerOptions {
  readonly checkpointer?: Checkpointer;
  readonly cache?: NodeCache;
  readonly maxConcurrency?: number;
  readonly eventProcessors?: readonly EventProcessor[];
  /**
   * Lease length (ms) for workflows this runner runs. While a run holds the lease no other process runs the
   * workflow; if this process freezes (or a node blocks the event loop) longer than this, another process may take
   * the workflow over and this run fails with `LeaseLostError`. Default 30 s.
   */
  readonly leaseTtlMs?: number;
  /** How often (ms) a running workflow's lease is renewed; at most half of `leaseTtlMs`. Default `leaseTtlMs / 3`. */
  readonly leaseRenewIntervalMs?: number;
  /**
   * How often (ms) a running workflow checks for a stop asked for from another process (`runner.stop` there):
   * the stop latency across processes. Each check is one small read. Default min(1 s, `leaseRenewIntervalMs`).
   */
  readonly stopPollIntervalMs?: number;
  /** Lease owner id. Default `host:pid:random`. */
  readonly owner?: string;
  /** Events buffered for a slow `stream()` / `start().events` reader before the run waits. Default 1000. */
  readonly eventBufferSize?: number;
}

/** Options of one run. */
export interface RunOptions {
  readonly values?: Readonly<Record<string, unknown>>;
  readonly workflowId?: string;
  /** Fork: start a new workflow id from this checkpoint. */
  readonly checkpoint?: Checkpoint;
  /** `@graph/select` patterns that filter `result.values`. */
  readonly select?: string | readonly string[];
  /** How many times one node may run in one run (a loop's iterations) before `InfiniteLoopError`. Default 1000. */
  readonly maxIterations?: number;
  /** "raise" (default) rejects with `NodeExecutionError`; "continue" resolves with `status: "failed"`. */
  readonly errorHandling?: "raise" | "continue";
  /** Aborting it stops the run (like `handle.stop()`). */
  readonly signal?: AbortSignal;
  /** Run even if the stored workflow was created by another graph version. */
  readonly force?: boolean;
  /**
   * Values the graph does not know (no node reads or produces them, usually a typo): `"error"` (default) rejects
   * the run with `UnknownValueError` and a "did you mean"; `"ignore"` drops them with a `Warning` event.
   */
  readonly unknownValues?: "error" | "ignore";
  /**
   * Recovery of a run whose process died (a queue worker redelivering it): a stop request stored for the workflow
   * is honoured — the run ends `stopped` before any node starts — instead of being cleared as an explicit resume
   * clears it. Default false.
   */
  readonly recover?: boolean;
}

/** Options of `runner.map`. */
export interface MapOptions extends Omit<RunOptions, "checkpoint"> {
  readonly mapOver: string | readonly string[];
  readonly mapMode?: "zip" | "product";
  readonly maxConcurrency?: number;
}

/** What `runner.start` returns. */
export interface RunHandle {
  readonly workflowId: string;
  readonly runId: string;
  readonly events: AsyncIterable<GraphEvent>;
  readonly result: Promise<RunResult>;
  stop(info?: unknown): void;
}
