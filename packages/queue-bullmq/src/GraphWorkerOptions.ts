import type { Checkpointer } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import type { HousekeepingOptions, PermitSignal } from "@graph/runtime";
import type { FramesDistributeOptions } from "./internal/frameChunks.js";
import type { DistributeOptions } from "./internal/nodeMap.js";
import type { WorkerRunLimits } from "./internal/runLimits.js";

/** Options of a {@link GraphWorker}. */
export interface GraphWorkerOptions {
  /** Redis URL (`redis://host:port/db`) of the queue. Default `REDIS_URL`, else `redis://127.0.0.1:6379`. */
  readonly connection?: string | undefined;
  /** The checkpointer every worker and the submitters share: the only source of truth of a run. */
  readonly checkpointer: Checkpointer;
  /** The graphs this worker runs, found by `name` (give each one); a job's `definitionHash` must match. */
  readonly graphs: readonly Graph[];
  /** The queue's name. Default `"graph"`. */
  readonly queue?: string;
  /** Key prefix. Default `"graph"`. */
  readonly prefix?: string;
  /** Runs at once in this process. Default 4. */
  readonly concurrency?: number;
  /** The runs' checkpointer lease; another worker adopts a dead worker's run once it expired. Default 30 s. */
  readonly leaseTtlMs?: number;
  /** BullMQ's job lock: a dead worker's job is delivered again once it expired. Default 30 s. */
  readonly lockDurationMs?: number;
  /**
   * How often each held run polls the checkpointer for a stop request (`RemoteRunner.stop`, `runner.stop` in any
   * process) when no nudge arrived: the cross-process stop latency's bound. Default 250 ms.
   */
  readonly stopPollMs?: number;
  /** How long `close()` lets running runs finish before stopping them for another worker to resume. Default 10 s. */
  readonly closeTimeoutMs?: number;
  /** Call `close()` on SIGTERM and SIGINT. Default true. */
  readonly handleSignals?: boolean;
  /** Lease owner id. Default `host:pid:random`. */
  readonly owner?: string;
  /**
   * `distribute`: a mapped GraphNode (`graph.asNode().mapOver(...)`) with at least `minItems` items, in a workflow
   * this worker runs, is split into chunk jobs of `chunkSize` items that any worker of the queue runs; the workflow
   * waits for them without holding a worker slot, then continues with the items' results in item order. Smaller
   * maps run in the run's process. Default: every map runs in the run's process.
   */
  readonly map?: { readonly distribute?: DistributeOptions };
  /**
   * `distribute`: the frames of a frames pipeline (`node({ frames })`) in a workflow this worker runs go to frame
   * chunk jobs (`chunkSize` frames, default a quarter of the window) that any worker of the queue runs; the
   * generator stays in the run's worker, which keeps its slot and at most `window` frames unfinished across the
   * pool (docs/pipelines.md). Default: frames run in the run's process.
   */
  readonly frames?: { readonly distribute?: FramesDistributeOptions };
  /**
   * Run-level limits of runs submitted without their own (`RemoteRunner.submit`'s `concurrency` / `rateLimit`
   * replace them, kind by kind): keys computed from the submission's values at the run's first delivery (a later
   * turn, such as an interrupt's answer, carries only its own values). A run over its limit waits in BullMQ's
   * delayed set, not in a worker slot. Every worker of the queue should have the same. See docs/flow-control.md.
   */
  readonly runLimits?: WorkerRunLimits;
  /**
   * Wakes waiters for store-wide permits (node limits, run-level keys) in every process when one is given back.
   * Default: a `RedisPermitSignal` on this worker's Redis (channel `<prefix>:permit-released`); `false`: none
   * (waiters poll, up to 100 ms apart).
   */
  readonly permitSignal?: PermitSignal | false;
  /**
   * Retention housekeeping of the worker's runner (see the runtime's `RunnerOptions.housekeeping`): with a `ttlMs`
   * policy on the checkpointer, a timer deletes expired workflows in batches, one worker of the store at a time
   * (a store-wide lease), never inside a run. `false`: no timer.
   */
  readonly housekeeping?: false | HousekeepingOptions;
}
