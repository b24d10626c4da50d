/**
 * Due times and event waits on Redis. The workflow hash is the truth (`wa`, `we`, `wk`, written by the record's
 * own fenced script); the indexes that find workflows by them live in the index slot (`keys.ts`), which on Redis
 * Cluster no record script can reach. So the indexes follow the record by a protocol that can lag but never lose a
 * due time:
 *
 * 1. before a write that may store a due time or a wait, `begin` counts the write in flight and lowers (or adds) the
 *    workflow's entry: the due index score is always at most the stored due time, and the wait set holds the
 *    workflow before its record says it waits;
 * 2. after the write (stored or refused), and after any write whose script reports that the times changed,
 *    `reconcile` re-reads the record and sets the entries to it exactly, but only when no write is in flight and
 *    none began since it looked (a compare-and-set on a per-workflow sequence number);
 * 3. readers take index entries as candidates, check each against its record, and reconcile entries that
 *    disagree.
 *
 * A process that dies between 1 and 2 leaves an entry that is too early or stale, never one that is missing or too
 * late: readers skip it (and `deleteWorkflow` removes it).
 */
import type { DueWorkflow, EventWait } from "@graph/checkpoint";
import { compareDue, compareWorkflowPosition } from "@graph/checkpoint/adapter";
import { dueChannel } from "./dueNotify.js";
import type { IndexContext } from "./indexes.js";

/** The most index entries one round trip reads (each is then checked against its record). */
const MAX_BATCH = 1000;

/** A batch a bit larger than what the answer needs: entries that fail the check against their record are rare. */
function batchFor(limit: number): number {
  return Math.min(MAX_BATCH, limit + 16);
}

/** What a write is about to store: its due time in ms and its wait (either may be absent). */
export interface TimeWrite {
  readonly wakeAt?: number | undefined;
  readonly waitingFor?: EventWait | undefined;
}

/** The record's part the indexes follow. */
interface StoredTimes {
  readonly status: string;
  readonly wakeAt: number | undefined;
  readonly waitingFor: EventWait | undefined;
  readonly createdAt: number;
}

/** The due-time and wait indexes of one store. */
export class TimeIndex {
  readonly #context: IndexContext;

  constructor(context: IndexContext) {
    this.#context = context;
  }

  /** Whether a write stores something `begin` must announce. */
  static announces(write: TimeWrite): boolean {
    return write.wakeAt !== undefined || write.waitingFor !== undefined;
  }

  /**
   * Runs a record write between the steps of the protocol: `begin` when it may store a due time or a wait,
   * `reconcile` after it when it began so or when the write reports (`[result, changed]`) that the times changed.
   */
  async around<A>(id: string, write: TimeWrite, run: () => Promise<readonly [A, boolean]>): Promise<A> {
    const announced = TimeIndex.announces(write);
    if (announced) await this.begin(id, write);
    let outcome: readonly [A, boolean];
    try {
      outcome = await run();
    } catch (error) {
      // The refused write stored nothing; the entries `begin` lowered go back (a failure here leaves them early).
      if (announced) await this.reconcile(id, true).catch(() => undefined);
      throw error;
    }
    if (announced || outcome[1]) await this.reconcile(id, announced);
    // Wakes idle runners of other processes (a hint: the index above is the truth, and re-reads find it anyway).
    if (write.wakeAt !== undefined)
      this.#context.client.publish(dueChannel(this.#context.keys.prefix), String(write.wakeAt)).catch(() => undefined);
    return outcome[0];
  }

  /** Step 1: counts a write in flight and lowers or adds its entries. */
  async begin(id: string, write: TimeWrite): Promise<void> {
    const { due, pending, sequence, waits } = this.#context.keys.index;
    const keys = [due, pending, sequence, waits];
    if (write.waitingFor !== undefined) keys.push(this.#context.keys.wait(write.waitingFor));
    await this.#context.scripts.graphTimeBegin(
      keys.length,
      ...keys,
      id,
      write.wakeAt === undefined ? "" : String(write.wakeAt),
    );
  }

  /**
   * Step 2: sets the workflow's entries to what its record holds, unless another write is in flight or began since.
   * `done`: this ends a write announced with {@link begin}.
   */
  async reconcile(id: string, done: boolean): Promise<void> {
    const { due, pending, sequence, waits } = this.#context.keys.index;
    const [inFlight, seq, sets] = (await this.#context.scripts.graphTimeState(
      pending,
      sequence,
      waits,
      id,
      done ? "1" : "0",
    )) as [number, string, string];
    if (Number(inFlight) > 0) return;
    const stored = await this.#read(id);
    const keeps = stored !== undefined && (stored.status === "paused" || stored.status === "running");
    const wakeAt = keeps ? stored.wakeAt : undefined;
    const wait = keeps ? stored.waitingFor : undefined;
    const current = wait === undefined ? due : this.#context.keys.wait(wait);
    const members = sets === "" ? [] : sets.split("\u0000");
    const keys = [due, pending, sequence, waits, current, ...members];
    await this.#context.scripts.graphTimeApply(
      keys.length,
      ...keys,
      id,
      seq,
      wakeAt === undefined ? "" : String(wakeAt),
      String(stored?.createdAt ?? 0),
      wait === undefined ? "0" : "1",
    );
  }

  /** Removes deleted workflows from every time index. */
  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const { due, pending, sequence, waits } = this.#context.keys.index;
    const sets = (await this.#context.client.hmget(waits, ...ids)).flatMap((value) =>
      value === null ? [] : value.split("\u0000"),
    );
    const keys = [due, pending, sequence, waits, ...new Set(sets)];
    await this.#context.scripts.graphTimeRemove(keys.length, ...keys, ...ids);
  }

  /** `listDue` over checked options: candidates in score order, checked against their records. */
  async listDue(before: number, limit: number): Promise<DueWorkflow[]> {
    const found: { id: string; wakeAt: number }[] = [];
    await this.#walk(this.#context.keys.index.due, before, batchFor(limit), async (batch, lastScore) => {
      for (const [i, stored] of (await this.#readMany(batch.map((entry) => entry.id))).entries()) {
        const entry = batch[i]!;
        if (stored?.wakeAt !== undefined && keepsDue(stored) && stored.wakeAt <= before) {
          found.push({ id: entry.id, wakeAt: stored.wakeAt });
        }
        if (stored?.wakeAt !== entry.score || !keepsDue(stored)) await this.reconcile(entry.id, false);
      }
      found.sort(compareDue);
      // Entries not read yet score at least `lastScore`, and a score is at most its record's due time.
      return found.length >= limit && found[limit - 1]!.wakeAt < lastScore;
    });
    return found.slice(0, limit).map((entry) => ({ id: entry.id, wakeAt: new Date(entry.wakeAt) }));
  }

  /** `nextDue`: the earliest checked due time. */
  async nextDue(): Promise<Date | undefined> {
    let best: number | undefined;
    await this.#walk(this.#context.keys.index.due, Number.POSITIVE_INFINITY, batchFor(0), async (batch, lastScore) => {
      for (const [i, stored] of (await this.#readMany(batch.map((entry) => entry.id))).entries()) {
        const entry = batch[i]!;
        if (stored?.wakeAt !== undefined && keepsDue(stored) && (best === undefined || stored.wakeAt < best)) {
          best = stored.wakeAt;
        }
        if (stored?.wakeAt !== entry.score || !keepsDue(stored)) await this.reconcile(entry.id, false);
      }
      return best !== undefined && best <= lastScore;
    });
    return best === undefined ? undefined : new Date(best);
  }

  /** `listWaiting` over a checked wait: candidates in score order, checked against their records. */
  async listWaiting(wait: EventWait, limit: number): Promise<string[]> {
    const found: { id: string; createdAt: Date }[] = [];
    await this.#walk(
      this.#context.keys.wait(wait),
      Number.POSITIVE_INFINITY,
      batchFor(limit),
      async (batch, lastScore) => {
        for (const [i, stored] of (await this.#readMany(batch.map((entry) => entry.id))).entries()) {
          const entry = batch[i]!;
          const waiting = stored?.waitingFor;
          const matches = waiting !== undefined && waiting.event === wait.event && waiting.key === wait.key;
          if (matches && stored?.status === "paused")
            found.push({ id: entry.id, createdAt: new Date(stored.createdAt) });
          if (!matches || stored?.createdAt !== entry.score) await this.reconcile(entry.id, false);
        }
        found.sort(compareWorkflowPosition);
        return found.length >= limit && found[limit - 1]!.createdAt.getTime() < lastScore;
      },
    );
    return found.slice(0, limit).map((entry) => entry.id);
  }

  /**
   * Reads a sorted set in score order up to `max`, `size` entries at a time, until `enough(batch, lastScore)` says the
   * rest cannot change the answer. Each batch starts at the last score read, skipping the members of that score
   * already read; a member seen twice (its entry moved while the walk ran) is passed once.
   */
  async #walk(
    key: string,
    max: number,
    size: number,
    enough: (batch: { id: string; score: number }[], lastScore: number) => Promise<boolean>,
  ): Promise<void> {
    const passed = new Set<string>();
    let min = Number.NEGATIVE_INFINITY;
    let atMin = new Set<string>();
    for (;;) {
      const count = size + atMin.size;
      const reply = await this.#context.client.zrangebyscore(
        key,
        min === Number.NEGATIVE_INFINITY ? "-inf" : String(min),
        max === Number.POSITIVE_INFINITY ? "+inf" : String(max),
        "WITHSCORES",
        "LIMIT",
        0,
        count,
      );
      const read: { id: string; score: number }[] = [];
      for (let i = 0; i + 1 < reply.length; i += 2) read.push({ id: reply[i]!, score: Number(reply[i + 1]) });
      const fresh = read.filter((entry) => !(entry.score === min && atMin.has(entry.id)));
      if (fresh.length === 0) return;
      const lastScore = fresh[fresh.length - 1]!.score;
      const batch = fresh.filter((entry) => !passed.has(entry.id));
      for (const entry of batch) passed.add(entry.id);
      if ((await enough(batch, lastScore)) || read.length < count) return;
      const sameScore = fresh.filter((entry) => entry.score === lastScore).map((entry) => entry.id);
      atMin = new Set(lastScore === min ? [...atMin, ...sameScore] : sameScore);
      min = lastScore;
    }
  }

  async #read(id: string): Promise<StoredTimes | undefined> {
    return (await this.#readMany([id]))[0];
  }

  /** The time fields of some workflows (`undefined`: gone). */
  async #readMany(ids: readonly string[]): Promise<(StoredTimes | undefined)[]> {
    return Promise.all(
      ids.map(async (id) => {
        const [status, wa, we, wk, ca] = await this.#context.client.hmget(
          this.#context.keys.workflow(id).workflow,
          "st",
          "wa",
          "we",
          "wk",
          "ca",
        );
        if (status === null || status === undefined) return undefined;
        return {
          status,
          wakeAt: wa === null || wa === undefined ? undefined : Number(wa),
          waitingFor: typeof we === "string" && typeof wk === "string" ? { event: we, key: wk } : undefined,
          createdAt: Number(ca),
        };
      }),
    );
  }
}

function keepsDue(stored: StoredTimes | undefined): boolean {
  return stored?.status === "paused" || stored?.status === "running";
}
