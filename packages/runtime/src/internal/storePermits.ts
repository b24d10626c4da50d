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
 *
 * A waiter polls with backoff, and is woken at once when a permit of its limit is given back: directly by a release
 * in this runner, and through the runner's `permitSignal` (another process's release) when it has one. A wake-up
 * goes to the longest-waiting sleeper of the key here; a lost one only costs the next poll.
 */
import { createHash } from "node:crypto";
import type { Checkpointer, Lease } from "@graph/checkpoint";
import { isWorkflowConflictError } from "@graph/checkpoint";
import type { PermitSignal } from "../options.js";

/** A slot taken: released (or left to expire) by {@link StorePermits.release}. */
export interface HeldPermit {
  readonly id: string;
  /** The limit's key in notifications (a hash of the limit: what every slot id of it starts with). */
  readonly key: string;
  readonly lease: Lease;
  /** Renews the lease while a long call holds a concurrency permit; undefined for rate permits. */
  readonly renewal: ReturnType<typeof setInterval> | undefined;
}

const PARENT = "~permits";
/** The graph name of permit slot records: never a workflow of the user's (bulk operations skip them). */
export const PERMIT_GRAPH = "~permit";
/** Waits between rounds of tries when every slot is held: short at first, then at most this. */
const MAX_BACKOFF_MS = 100;

/** The waiters of one key asleep between two rounds, longest-waiting first, and the key's subscription. */
interface Sleepers {
  readonly wakes: (() => void)[];
  /** Wake-ups that found nobody asleep (a waiter between two tries): the next to fall asleep tries again at once. */
  missed: number;
  readonly unsubscribe: (() => void) | undefined;
  /** Waiters of the key (asleep or trying): the subscription lives while there is one. */
  waiters: number;
  /** When this runner notified the key and has not heard it back yet (a signal may drop it: they expire). */
  readonly echoes: number[];
}

/** How long an own notification is expected back before it counts as lost. */
const ECHO_MS = 1_000;

export class StorePermits {
  readonly #known = new Set<string>();
  readonly #sleepers = new Map<string, Sleepers>();
  #sequence = 0;

  constructor(
    readonly checkpointer: Checkpointer,
    readonly owner: string,
    readonly ttlMs: number,
    readonly renewEveryMs: number,
    readonly signal?: PermitSignal,
  ) {}

  /**
   * Takes one of `limit` slots of `key`, waiting (polling with backoff, woken by releases) while all are held.
   * `holdMs`: a rate permit held that long and never renewed; undefined: a concurrency permit held under the lease
   * TTL, renewed until released. `onWait` is called once when the first round finds every slot held. Rejects with
   * the signal's reason when `signal` aborts while it waits.
   */
  async acquire(
    key: string,
    limit: number,
    holdMs: number | undefined,
    signal: AbortSignal,
    onWait: () => void,
  ): Promise<HeldPermit> {
    const base = slotBase(key);
    const first = await this.#tryAll(base, limit, holdMs, signal);
    if (first !== undefined) return first;
    onWait();
    const sleepers = this.#enter(base);
    try {
      for (let round = 0; ; round++) {
        await this.#sleep(sleepers, Math.min(MAX_BACKOFF_MS, 10 * 2 ** round) * (0.5 + Math.random() / 2), signal);
        const permit = await this.#tryAll(base, limit, holdMs, signal);
        if (permit !== undefined) return permit;
      }
    } finally {
      this.#leave(base, sleepers);
    }
  }

  /** One round over the slots of `key`: a permit, or undefined when every slot is held (never waits). */
  tryAcquire(key: string, limit: number, holdMs: number | undefined): Promise<HeldPermit | undefined> {
    return this.#tryAll(slotBase(key), limit, holdMs, undefined);
  }

  /** Gives a concurrency permit back and wakes a waiter of its key; a rate permit stays held until its time is over. */
  async release(permit: HeldPermit): Promise<void> {
    if (permit.renewal === undefined) return;
    clearInterval(permit.renewal);
    await this.checkpointer.releaseWorkflow(permit.id, permit.lease);
    this.#released(permit.key);
  }

  async #tryAll(
    base: string,
    limit: number,
    holdMs: number | undefined,
    signal: AbortSignal | undefined,
  ): Promise<HeldPermit | undefined> {
    const first = Math.floor(Math.random() * limit);
    for (let i = 0; i < limit; i++) {
      if (signal?.aborted) throw signal.reason;
      const id = `${base}/${(first + i) % limit}`;
      const lease = await this.#take(id, holdMs ?? this.ttlMs);
      if (lease === undefined) continue;
      if (holdMs !== undefined) {
        // A rate permit is never released: its waiters are told when its time is over (a store-side expiry).
        const timer = setTimeout(() => this.#released(base), holdMs + 5);
        timer.unref?.();
      }
      return { id, key: base, lease, renewal: holdMs === undefined ? this.#renew(id, lease) : undefined };
    }
    return undefined;
  }

  /** A permit of `base` is free again: wake a sleeper here, and tell the other processes. */
  #released(base: string): void {
    this.#wake(base);
    const sleepers = this.#sleepers.get(base);
    // Our own notification comes back to our subscription: a sleeper here was woken already, so it is skipped.
    if (sleepers?.unsubscribe !== undefined) sleepers.echoes.push(Date.now());
    try {
      Promise.resolve(this.signal?.notify(base)).catch(() => {});
    } catch {
      // A failing signal only costs the other processes' waiters their next poll.
    }
  }

  #wake(base: string): void {
    const sleepers = this.#sleepers.get(base);
    if (sleepers === undefined) return;
    const wake = sleepers.wakes.shift();
    if (wake !== undefined) wake();
    else sleepers.missed = Math.min(sleepers.missed + 1, sleepers.waiters);
  }

  /** A notification of `base` that is (as far as we can tell) our own coming back. */
  #ownEcho(base: string): boolean {
    const echoes = this.#sleepers.get(base)?.echoes;
    if (echoes === undefined) return false;
    const since = Date.now() - ECHO_MS;
    while (echoes.length > 0 && echoes[0]! < since) echoes.shift();
    return echoes.shift() !== undefined;
  }

  #enter(base: string): Sleepers {
    let sleepers = this.#sleepers.get(base);
    if (sleepers === undefined) {
      let unsubscribe: (() => void) | undefined;
      try {
        unsubscribe = this.signal?.subscribe(base, () => {
          if (!this.#ownEcho(base)) this.#wake(base);
        });
      } catch {
        unsubscribe = undefined; // polling alone
      }
      sleepers = { wakes: [], missed: 0, unsubscribe, waiters: 0, echoes: [] };
      this.#sleepers.set(base, sleepers);
    }
    sleepers.waiters++;
    return sleepers;
  }

  #leave(base: string, sleepers: Sleepers): void {
    if (--sleepers.waiters > 0) return;
    this.#sleepers.delete(base);
    try {
      sleepers.unsubscribe?.();
    } catch {
      // Nothing to undo here: the signal's own state.
    }
  }

  /** Sleeps `ms`, or less when a permit of the key is given back; rejects when `signal` aborts. */
  #sleep(sleepers: Sleepers, ms: number, signal: AbortSignal): Promise<void> {
    if (sleepers.missed > 0) {
      sleepers.missed--;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        const at = sleepers.wakes.indexOf(done);
        if (at >= 0) sleepers.wakes.splice(at, 1);
      };
      const done = (): void => {
        settle();
        resolve();
      };
      const onAbort = (): void => {
        settle();
        reject(signal.reason);
      };
      const timer = setTimeout(done, ms);
      sleepers.wakes.push(done);
      signal.addEventListener("abort", onAbort, { once: true });
    });
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

/** Where the slots of a limit live, and its key in notifications. */
const slotBase = (key: string): string => `${PARENT}/${createHash("sha256").update(key).digest("hex").slice(0, 24)}`;
