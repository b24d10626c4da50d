/**
 * Retention housekeeping, off the run path: a timer deletes workflows past the store's `ttlMs` in bounded batches
 * (`Checkpointer.sweepExpired`), so a run's start never waits for a cleanup and never fails because of one. One
 * process sweeps a store at a time: the sweeper holds the lease of a reserved record (`~permits/sweeper`, a permit
 * slot like the node limits' — never listed, never expired, taken over when a crashed sweeper's lease runs out).
 * Between batches the sweeper renews its lease and yields, so writes of runs interleave with it.
 */
import type { Checkpointer, Lease } from "@graph/checkpoint";
import { isWorkflowConflictError } from "@graph/checkpoint";
import type { SweepReport } from "../options.js";
import { PERMIT_GRAPH } from "./storePermits.js";

/** The sweeper's lease record: a child of the permits' reserved root, so root listings and retention skip it. */
const SWEEPER_ID = "~permits/sweeper";
const SWEEPER_PARENT = "~permits";

/** What `new Runner({ housekeeping })` takes. */
export interface HousekeepingSettings {
  /** Between two sweeps. */
  readonly intervalMs: number;
  /** Root workflows per `sweepExpired` call. */
  readonly batchSize: number;
  /** The sweeper's lease (renewed after every batch). */
  readonly leaseTtlMs: number;
}

/** The retention sweeper of one runner. */
export class Housekeeper {
  readonly #checkpointer: Checkpointer;
  readonly #owner: string;
  readonly #settings: HousekeepingSettings;
  readonly #ready: () => Promise<void>;
  #timer: ReturnType<typeof setInterval> | undefined;
  #current: Promise<SweepReport | undefined> | undefined;
  #closing = false;
  #created = false;

  constructor(checkpointer: Checkpointer, owner: string, settings: HousekeepingSettings, ready: () => Promise<void>) {
    this.#checkpointer = checkpointer;
    this.#owner = `${owner}#sweeper`;
    this.#settings = settings;
    this.#ready = ready;
  }

  /** Whether the store has something to sweep: a `ttlMs` policy and the batch method. */
  static applies(checkpointer: Checkpointer | undefined): checkpointer is Checkpointer {
    return checkpointer?.policy?.ttlMs !== undefined && typeof checkpointer.sweepExpired === "function";
  }

  /** Arms the timer (unref'd: it never keeps a process alive). A failed sweep is retried at the next tick. */
  start(): void {
    if (this.#timer !== undefined || this.#closing) return;
    this.#timer = setInterval(() => void this.sweep().catch(() => undefined), this.#settings.intervalMs);
    this.#timer.unref?.();
  }

  /**
   * One sweep now (joined when one is running here): expired workflows oldest first, batch after batch, under the
   * lease, until a batch finds fewer than it may delete or `intervalMs` has passed.
   */
  sweep(): Promise<SweepReport | undefined> {
    this.#current ??= this.#sweep().finally(() => {
      this.#current = undefined;
    });
    return this.#current;
  }

  async #sweep(): Promise<SweepReport | undefined> {
    if (this.#closing) return { deleted: 0, batches: 0 };
    await this.#ready();
    const lease = await this.#claim();
    if (lease === undefined) return undefined;
    const { batchSize, leaseTtlMs, intervalMs } = this.#settings;
    // A sweep ends by the next tick at the latest, even while workflows keep expiring as fast as it deletes them
    // (a tiny ttl under load): the next sweep goes on, oldest first.
    const deadline = Date.now() + intervalMs;
    let deleted = 0;
    let batches = 0;
    try {
      for (;;) {
        const count = await this.#checkpointer.sweepExpired!({ limit: batchSize });
        deleted += count;
        batches++;
        if (count < batchSize || this.#closing || Date.now() >= deadline) break;
        // A lost lease (this process stalled past its ttl) means another sweeper took over: stop.
        await this.#checkpointer.renewWorkflow(SWEEPER_ID, lease, { ttlMs: leaseTtlMs });
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      await this.#checkpointer.releaseWorkflow(SWEEPER_ID, lease).catch(() => undefined);
    }
    return { deleted, batches };
  }

  /** The sweeper lease, or undefined while another process holds it. */
  async #claim(): Promise<Lease | undefined> {
    if (!this.#created) {
      await this.#checkpointer.createWorkflow({
        id: SWEEPER_ID,
        graphName: PERMIT_GRAPH,
        graphHash: "-",
        parentId: SWEEPER_PARENT,
      });
      this.#created = true;
    }
    try {
      return await this.#checkpointer.claimWorkflow(SWEEPER_ID, {
        owner: this.#owner,
        ttlMs: this.#settings.leaseTtlMs,
      });
    } catch (error) {
      if (isWorkflowConflictError(error)) return undefined;
      throw error;
    }
  }

  /** Stops the timer and waits for a sweep in progress (it ends after its current batch). */
  async close(): Promise<void> {
    this.#closing = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#current?.catch(() => undefined);
  }
}
