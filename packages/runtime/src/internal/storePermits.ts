/**
 * Node limits shared by every runner on one store. A limit of `n` is `n` permit slots, and a slot is a tiny workflow
 * record (`~permits/<hash>/<i>`, a child of the reserved root `~permits`, so root listings never show it) whose
 * lease is the permit: taking a slot is `claimWorkflow`, which every adapter makes exclusive across processes and
 * gives up when its TTL passes. So a permit is leased and fenced exactly like a workflow: a crashed holder's permit
 * comes back when its lease expires, and two holders can never own one slot.
 *
 * A rate limit of `n` per `per` is the same slots held for `per` from the call's start and never released early:
 * every call started in any window of length `per` still holds its slot at the window's end, so no window sees more
 * than `n` starts.
 */
import { createHash } from "node:crypto";
import type { Checkpointer, Lease } from "@graph/checkpoint";
import { isWorkflowConflictError } from "@graph/checkpoint";

/** A slot taken: released (or left to expire) by {@link StorePermits.release}. */
export interface HeldPermit {
  readonly id: string;
  readonly lease: Lease;
  /** Renews the lease while a long call holds a concurrency permit; undefined for rate permits. */
  readonly renewal: ReturnType<typeof setInterval> | undefined;
}

const PARENT = "~permits";
/** The graph name of permit slot records: never a workflow of the user's (bulk operations skip them). */
export const PERMIT_GRAPH = "~permit";
/** Waits between rounds of tries when every slot is held: short at first, then at most this. */
const MAX_BACKOFF_MS = 100;

export class StorePermits {
  readonly #known = new Set<string>();
  #sequence = 0;

  constructor(
    readonly checkpointer: Checkpointer,
    readonly owner: string,
    readonly ttlMs: number,
    readonly renewEveryMs: number,
  ) {}

  /**
   * Takes one of `limit` slots of `key`, waiting (polling with backoff) while all are held. `holdMs`: a rate
   * permit held that long and never renewed; undefined: a concurrency permit held under the lease TTL, renewed
   * until released. `onWait` is called once when the first round finds every slot held. Rejects with the signal's
   * reason when `signal` aborts while it waits.
   */
  async acquire(
    key: string,
    limit: number,
    holdMs: number | undefined,
    signal: AbortSignal,
    onWait: () => void,
  ): Promise<HeldPermit> {
    const base = `${PARENT}/${createHash("sha256").update(key).digest("hex").slice(0, 24)}`;
    for (let round = 0; ; round++) {
      const first = Math.floor(Math.random() * limit);
      for (let i = 0; i < limit; i++) {
        if (signal.aborted) throw signal.reason;
        const id = `${base}/${(first + i) % limit}`;
        const lease = await this.#take(id, holdMs ?? this.ttlMs);
        if (lease !== undefined)
          return { id, lease, renewal: holdMs === undefined ? this.#renew(id, lease) : undefined };
      }
      if (round === 0) onWait();
      const wait = Math.min(MAX_BACKOFF_MS, 10 * 2 ** round) * (0.5 + Math.random() / 2);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, wait);
        signal.addEventListener(
          "abort",
          () => {
            clearTimeout(timer);
            reject(signal.reason);
          },
          { once: true },
        );
      });
    }
  }

  /** Gives a concurrency permit back; a rate permit stays held until its time is over. */
  async release(permit: HeldPermit): Promise<void> {
    if (permit.renewal === undefined) return;
    clearInterval(permit.renewal);
    await this.checkpointer.releaseWorkflow(permit.id, permit.lease);
  }

  /** The lease of slot `id`, or undefined when another holder has it. Each take is a new owner: never a renewal. */
  async #take(id: string, ttlMs: number): Promise<Lease | undefined> {
    if (!this.#known.has(id)) {
      await this.checkpointer.createWorkflow({ id, graphName: PERMIT_GRAPH, graphHash: "-", parentId: PARENT });
      this.#known.add(id);
    }
    try {
      return await this.checkpointer.claimWorkflow(id, { owner: `${this.owner}#${++this.#sequence}`, ttlMs });
    } catch (error) {
      if (isWorkflowConflictError(error)) return undefined;
      throw error;
    }
  }

  #renew(id: string, lease: Lease): ReturnType<typeof setInterval> {
    const timer = setInterval(() => {
      // A renewal that fails means the permit was lost (this process stalled past its TTL): the next holder has
      // it. The call goes on; the slot is not double-booked by us again since we never renew a lost lease.
      this.checkpointer.renewWorkflow(id, lease, { ttlMs: this.ttlMs }).catch(() => clearInterval(timer));
    }, this.renewEveryMs);
    timer.unref?.();
    return timer;
  }
}
