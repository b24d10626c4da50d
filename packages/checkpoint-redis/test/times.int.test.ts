// How the Redis due-time and wait indexes follow the workflow records (src/internal/times.ts): their keys, what a
// writer that died mid-protocol leaves behind, and readers repairing entries that disagree with their record.
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { RedisCheckpointer } from "../src/index.js";
import { clearPrefixes, randomPrefix, redisUrl } from "./fixtures/store.js";

const prefixes: string[] = [];
const admin = new Redis(redisUrl());
afterAll(async () => {
  admin.disconnect();
  await clearPrefixes(prefixes);
});

function open(): RedisCheckpointer {
  const prefix = randomPrefix("times");
  prefixes.push(prefix);
  return new RedisCheckpointer({ url: redisUrl(), prefix });
}

async function keysOf(prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await admin.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== "0");
  return found.sort();
}

const WAIT = { event: "ticket.replied", key: '{"ticketId":"T-1"}' };
const T = Date.UTC(2030, 0, 1);

/** What a writer that died between announcing its write and reconciling leaves: a write in flight, an early entry. */
async function diedMidWrite(p: string, id: string, earlyScore: number): Promise<void> {
  await admin.hincrby(`${p}{graph-index}:tpend`, id, 1);
  await admin.hincrby(`${p}{graph-index}:tseq`, id, 1);
  await admin.zadd(`${p}{graph-index}:due`, "LT", earlyScore, id);
}

describe("RedisCheckpointer due-time and wait indexes", () => {
  it("live in the index slot next to the listing indexes; deleteWorkflow removes every key", async () => {
    const checkpointer = open();
    const p = checkpointer.prefix;
    await checkpointer.createWorkflow({ id: "a", graphName: "g", graphHash: "h", wakeAt: new Date(T) });
    await checkpointer.createWorkflow({ id: "a/inner", graphName: "g", graphHash: "h", parentId: "a" });
    await checkpointer.updateWorkflow("a/inner", { status: "paused", waitingFor: WAIT });
    const waitKey = `${p}{graph-index}:wait:14:ticket.replied{"ticketId":"T-1"}`;
    expect(await keysOf(p)).toEqual(
      [
        `${p}{a}/inner:w`,
        `${p}{a}:w`,
        `${p}{graph-index}:all`,
        `${p}{graph-index}:due`,
        `${p}{graph-index}:ids`,
        `${p}{graph-index}:roots`,
        `${p}{graph-index}:tseq`,
        `${p}{graph-index}:ttl`,
        `${p}{graph-index}:twait`,
        waitKey,
        // The listing sets of the graph and of the statuses (the child's entry as running stays until a listing
        // of running workflows drops it), and the status writes' sequence.
        `${p}{graph-index}:graph:g`,
        `${p}{graph-index}:sseq`,
        `${p}{graph-index}:status:paused`,
        `${p}{graph-index}:status:running`,
      ].sort(),
    );
    // Exact entries once the writes reconciled: the due time, and the creation time in the wait set.
    const created = (await checkpointer.getWorkflow("a/inner"))!.createdAt.getTime();
    expect(await admin.zrange(`${p}{graph-index}:due`, 0, -1, "WITHSCORES")).toEqual(["a", String(T)]);
    expect(await admin.zrange(waitKey, 0, -1, "WITHSCORES")).toEqual(["a/inner", String(created)]);
    expect(await admin.hgetall(`${p}{graph-index}:twait`)).toEqual({ "a/inner": waitKey });
    await checkpointer.deleteWorkflow("a");
    expect(await keysOf(p)).toEqual([]);
    await checkpointer.close();
  });

  it("a writer that died after announcing leaves an early entry: readers check the record and skip it", async () => {
    const checkpointer = open();
    const p = checkpointer.prefix;
    await checkpointer.createWorkflow({ id: "sleeper", graphName: "g", graphHash: "h", wakeAt: new Date(T) });
    await checkpointer.createWorkflow({ id: "never", graphName: "g", graphHash: "h" });
    await diedMidWrite(p, "sleeper", T - 100);
    await diedMidWrite(p, "never", T - 200);
    expect(await checkpointer.listDue({ before: new Date(T - 50) })).toEqual([]);
    expect(await checkpointer.listDue({ before: new Date(T) })).toEqual([{ id: "sleeper", wakeAt: new Date(T) }]);
    expect(await checkpointer.nextDue()).toEqual(new Date(T));
    // With a write in flight nobody rewrites the entries (that write may still land): they stay early.
    expect(await admin.zscore(`${p}{graph-index}:due`, "sleeper")).toBe(String(T - 100));
    expect(await admin.zscore(`${p}{graph-index}:due`, "never")).toBe(String(T - 200));
    // The holder moves the due time later: the record says so, the (early) entry still finds it.
    const lease = await checkpointer.claimWorkflow("sleeper", { owner: "a", ttlMs: 10_000 });
    await checkpointer.updateWorkflow("sleeper", { wakeAt: new Date(T + 500) }, { epoch: lease.epoch });
    expect(await checkpointer.listDue({ before: new Date(T + 499) })).toEqual([]);
    expect(await checkpointer.listDue({ before: new Date(T + 500) })).toEqual([
      { id: "sleeper", wakeAt: new Date(T + 500) },
    ]);
    await checkpointer.deleteWorkflow("sleeper");
    await checkpointer.deleteWorkflow("never");
    expect((await keysOf(p)).filter((key) => /:(due|tpend|tseq|twait)$/.test(key))).toEqual([]);
    await checkpointer.close();
  });

  it("many early entries: the readers walk past them batch by batch to the due workflow", async () => {
    const checkpointer = open();
    const p = checkpointer.prefix;
    const stuck = Array.from({ length: 45 }, (_, i) => `stuck-${String(i).padStart(2, "0")}`);
    for (const [i, id] of stuck.entries()) {
      await checkpointer.createWorkflow({ id, graphName: "g", graphHash: "h" });
      await diedMidWrite(p, id, T - 1000 + (i % 3));
    }
    await checkpointer.createWorkflow({ id: "due", graphName: "g", graphHash: "h", wakeAt: new Date(T) });
    expect(await admin.zcard(`${p}{graph-index}:due`)).toBe(46);
    expect(await checkpointer.nextDue()).toEqual(new Date(T));
    expect(await checkpointer.listDue({ before: new Date(T), limit: 1 })).toEqual([{ id: "due", wakeAt: new Date(T) }]);
    expect(await checkpointer.listDue({ before: new Date(T - 1) })).toEqual([]);
    await checkpointer.close();
  });

  it("an entry that disagrees with its record while no write is in flight is repaired by the reader", async () => {
    const checkpointer = open();
    const p = checkpointer.prefix;
    await checkpointer.createWorkflow({ id: "early", graphName: "g", graphHash: "h", wakeAt: new Date(T) });
    await checkpointer.createWorkflow({ id: "stale", graphName: "g", graphHash: "h" });
    await checkpointer.updateWorkflow("stale", { status: "paused", waitingFor: WAIT });
    const waitKey = `${p}{graph-index}:wait:14:ticket.replied{"ticketId":"T-1"}`;
    await admin.zadd(`${p}{graph-index}:due`, T - 300, "early", T - 400, "stale");
    await admin.zadd(`${p}{graph-index}:wait:1:x{}`, 0, "stale");
    await admin.hset(`${p}{graph-index}:twait`, "stale", `${waitKey}\u0000${p}{graph-index}:wait:1:x{}`);
    expect(await checkpointer.listDue({ before: new Date(T) })).toEqual([{ id: "early", wakeAt: new Date(T) }]);
    expect(await admin.zrange(`${p}{graph-index}:due`, 0, -1, "WITHSCORES")).toEqual(["early", String(T)]);
    expect(await checkpointer.listWaiting({ event: "x", key: "{}" })).toEqual([]);
    expect(await admin.exists(`${p}{graph-index}:wait:1:x{}`)).toBe(0);
    expect(await admin.hget(`${p}{graph-index}:twait`, "stale")).toBe(waitKey);
    expect(await checkpointer.listWaiting(WAIT)).toEqual(["stale"]);
    await checkpointer.close();
  });

  it("writers and repairing readers at once: every stored due time is found, and the index ends exact", async () => {
    const checkpointer = open();
    const p = checkpointer.prefix;
    const ids = Array.from({ length: 12 }, (_, i) => `c${String(i).padStart(2, "0")}`);
    const leases = new Map<string, number>();
    for (const id of ids) {
      await checkpointer.createWorkflow({ id, graphName: "g", graphHash: "h" });
      leases.set(id, (await checkpointer.claimWorkflow(id, { owner: "w", ttlMs: 60_000 })).epoch);
    }
    const stored = new Map<string, number | undefined>();
    let writing = true;
    // Readers list all the time, reconciling whatever they find out of step with its record.
    const readers = Array.from({ length: 4 }, async () => {
      let reads = 0;
      while (writing) {
        await checkpointer.listDue({ before: new Date(T + 10_000) });
        await checkpointer.nextDue();
        reads++;
      }
      return reads;
    });
    // Each workflow's writer (the lease holder) sets, moves and clears its due time; after every write the due
    // list must reflect it at once.
    const writers = ids.map(async (id, w) => {
      for (let n = 0; n < 15; n++) {
        const wakeAt = (w * 31 + n * 17) % 7 === 0 ? null : new Date(T + ((w * 97 + n * 53) % 10_000));
        await checkpointer.updateWorkflow(id, { status: "paused", wakeAt }, { epoch: leases.get(id)! });
        stored.set(id, wakeAt?.getTime());
        const listed = await checkpointer.listDue({ before: new Date(T + 10_000), limit: 1000 });
        const mine = listed.find((entry) => entry.id === id);
        expect(mine?.wakeAt.getTime()).toBe(wakeAt?.getTime());
      }
    });
    await Promise.all(writers);
    writing = false;
    expect(Math.min(...(await Promise.all(readers)))).toBeGreaterThan(0);
    const expected = [...stored.entries()]
      .filter((entry): entry is [string, number] => entry[1] !== undefined)
      .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1));
    expect(
      (await checkpointer.listDue({ before: new Date(T + 10_000) })).map((e) => [e.id, e.wakeAt.getTime()]),
    ).toEqual(expected);
    // Quiet again: no write in flight, and every entry equals its record.
    expect(await admin.exists(`${p}{graph-index}:tpend`)).toBe(0);
    const entries = await admin.zrange(`${p}{graph-index}:due`, 0, -1, "WITHSCORES");
    expect(entries).toEqual(expected.flatMap(([id, ms]) => [id, String(ms)]));
    await checkpointer.close();
  });

  it("a refused write leaves the entries as they were, with no write left in flight", async () => {
    const checkpointer = open();
    const p = checkpointer.prefix;
    await checkpointer.createWorkflow({ id: "w", graphName: "g", graphHash: "h" });
    const first = await checkpointer.claimWorkflow("w", { owner: "a", ttlMs: 10_000 });
    await checkpointer.updateWorkflow("w", { status: "paused", wakeAt: new Date(T) }, { epoch: first.epoch });
    await checkpointer.releaseWorkflow("w", first);
    await checkpointer.claimWorkflow("w", { owner: "b", ttlMs: 10_000 });
    const before = await admin.zrange(`${p}{graph-index}:due`, 0, -1, "WITHSCORES");
    await expect(
      checkpointer.updateWorkflow("w", { wakeAt: new Date(T - 1000), waitingFor: WAIT }, { epoch: first.epoch }),
    ).rejects.toMatchObject({ _tag: "WorkflowConflictError", reason: "stale-fence" });
    expect(await admin.zrange(`${p}{graph-index}:due`, 0, -1, "WITHSCORES")).toEqual(before);
    expect(before).toEqual(["w", String(T)]);
    expect(await admin.exists(`${p}{graph-index}:tpend`)).toBe(0);
    expect(await checkpointer.listWaiting(WAIT)).toEqual([]);
    await checkpointer.close();
  });
});
