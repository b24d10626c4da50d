// Store-wide permits and their release notifications: a waiter in another runner of the store subscribes to its
// limit's key while it waits and is notified by the holder's release (`permitSignal`); the slots a queue takes around
// whole runs (`storePermitSlots` of `@graph/runtime/worker`); the option's validation.
import { EventEmitter } from "node:events";
import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, isGraphConfigError, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { type GraphEvent, isInvalidOptionError, type PermitSignal, Runner } from "../src/index.js";
import { storePermitSlots } from "../src/worker.js";

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await tick(10);
  expect(check()).toBe(true);
}

/** An in-process signal that records what the runners do with it. */
function recordingSignal() {
  const bus = new EventEmitter();
  const notified: string[] = [];
  const subscribed: string[] = [];
  const signal: PermitSignal = {
    notify: (key) => {
      notified.push(key);
      bus.emit(key);
    },
    subscribe: (key, onReleased) => {
      subscribed.push(key);
      bus.on(key, onReleased);
      return () => void bus.off(key, onReleased);
    },
  };
  return { signal, notified, subscribed, listeners: (key: string) => bus.listenerCount(key) };
}

function exclusiveGraph() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const calls: number[] = [];
  const exclusive = node({ output: "out", concurrency: 1 }, async function exclusive({ n }: { n: number }) {
    calls.push(n);
    if (n === 0) await gate;
    return n * 10;
  });
  return { graph: new Graph([exclusive], { name: "exclusive" }), calls, open };
}

describe("permit release notifications (permitSignal)", () => {
  it("a waiter in another runner subscribes to its limit's key while it waits; each release notifies that key", async () => {
    const checkpointer = new MemoryCheckpointer();
    const rec = recordingSignal();
    const a = new Runner({ checkpointer, closeCheckpointer: false, permitSignal: rec.signal });
    const b = new Runner({ checkpointer, closeCheckpointer: false, permitSignal: rec.signal });
    const { graph, calls, open } = exclusiveGraph();
    const holder = a.start(graph, { values: { n: 0 }, workflowId: "holder" });
    await until(() => calls.length === 1);
    const waiter = b.start(graph, { values: { n: 1 }, workflowId: "waiter" });
    const waits: Extract<GraphEvent, { type: "NodeWaiting" }>[] = [];
    const read = (async () => {
      for await (const e of waiter.events) if (e.type === "NodeWaiting") waits.push(e);
    })();
    await until(() => rec.subscribed.length === 1);
    const key = rec.subscribed[0]!;
    // An opaque id of the limit: no node name or tenant id goes over the signal.
    expect(key).toMatch(/^~permits\/[0-9a-f]{24}$/);
    expect(rec.listeners(key)).toBe(1);
    expect(calls).toEqual([0]);
    open();
    expect((await holder.result).values.out).toBe(0);
    expect((await waiter.result).values.out).toBe(10);
    await read;
    expect(waits.map((w) => [w.where, w.limitKind, w.limit])).toEqual([["store", "concurrency", 1]]);
    expect(calls).toEqual([0, 1]);
    expect(rec.notified).toEqual([key, key]);
    expect(rec.listeners(key)).toBe(0);
    await a.close();
    await b.close();
  });

  it("a rate permit notifies its key when its time is over", async () => {
    const checkpointer = new MemoryCheckpointer();
    const rec = recordingSignal();
    const runner = new Runner({ checkpointer, closeCheckpointer: false, permitSignal: rec.signal });
    const slots = storePermitSlots(runner);
    const permit = await slots.tryTake("test\u0000rate", 1, 50);
    expect(permit).toBeDefined();
    expect(rec.notified).toEqual([]);
    await until(() => rec.notified.length === 1);
    expect(rec.notified).toEqual([permit!.key]);
    await runner.close();
  });

  it("a signal that throws costs nothing but latency: the runs still take turns", async () => {
    const checkpointer = new MemoryCheckpointer();
    const broken: PermitSignal = {
      notify: () => Promise.reject(new Error("redis down")),
      subscribe: () => {
        throw new Error("redis down");
      },
    };
    const a = new Runner({ checkpointer, closeCheckpointer: false, permitSignal: broken });
    const b = new Runner({ checkpointer, closeCheckpointer: false, permitSignal: broken });
    const { graph, calls, open } = exclusiveGraph();
    const holder = a.start(graph, { values: { n: 0 } });
    await until(() => calls.length === 1);
    const waiter = b.start(graph, { values: { n: 1 } });
    await tick(50);
    expect(calls).toEqual([0]);
    open();
    expect([(await holder.result).values.out, (await waiter.result).values.out]).toEqual([0, 10]);
    await a.close();
    await b.close();
  });

  it("refuses a permitSignal that is not one, or without a checkpointer", () => {
    const signal = recordingSignal().signal;
    for (const [options, part] of [
      [{ checkpointer: new MemoryCheckpointer(), permitSignal: { notify() {} } }, "must be a PermitSignal"],
      [{ permitSignal: signal }, "must be used with a checkpointer"],
    ] as const) {
      let error: unknown;
      try {
        new Runner(options as never);
      } catch (e) {
        error = e;
      }
      expect(isInvalidOptionError(error)).toBe(true);
      expect((error as Error).message).toContain(`option 'permitSignal' ${part}`);
      expect((error as { option?: string }).option).toBe("permitSignal");
    }
  });
});

describe("storePermitSlots (run-level permits of a queue)", () => {
  it("limit slots per key, shared by the runners of a store; a release frees one; a rate permit frees itself", async () => {
    const checkpointer = new MemoryCheckpointer();
    const a = new Runner({ checkpointer, closeCheckpointer: false });
    const b = new Runner({ checkpointer, closeCheckpointer: false });
    const [sa, sb] = [storePermitSlots(a), storePermitSlots(b)];
    const first = await sa.tryTake("run\u0000acme", 2);
    const second = await sb.tryTake("run\u0000acme", 2);
    expect([first, second].every((p) => p !== undefined)).toBe(true);
    expect(first!.id).not.toBe(second!.id);
    expect(await sa.tryTake("run\u0000acme", 2)).toBeUndefined();
    expect(await sb.tryTake("run\u0000globex", 2)).toBeDefined();
    await sb.release(second!);
    const third = await sa.tryTake("run\u0000acme", 2);
    expect(third?.id).toBe(second!.id);

    const rated = await sa.tryTake("run-rate\u0000acme", 1, 100);
    expect(rated).toBeDefined();
    await sa.release(rated!); // a rate permit is not given back early
    expect(await sb.tryTake("run-rate\u0000acme", 1, 100)).toBeUndefined();
    await tick(150);
    expect(await sb.tryTake("run-rate\u0000acme", 1, 100)).toBeDefined();
    await a.close();
    await b.close();
  });

  it("a waiter of this runner is woken by a release of this runner, without a signal", async () => {
    const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
    const slots = storePermitSlots(runner);
    // The node's own limit id: its slot, taken from outside the run.
    const held = await slots.tryTake("concurrency\u0000exclusive\u0000", 1);
    expect(held).toBeDefined();
    const { graph, calls } = exclusiveGraph();
    const run = runner.start(graph, { values: { n: 1 } });
    let waited = false;
    const read = (async () => {
      for await (const e of run.events) if (e.type === "NodeWaiting" && e.where === "store") waited = true;
    })();
    await until(() => waited);
    expect(calls).toEqual([]);
    await slots.release(held!);
    expect((await run.result).values.out).toBe(10);
    await read;
    await runner.close();
  });

  it("needs a runner with a checkpointer", () => {
    let error: unknown;
    try {
      storePermitSlots(new Runner());
    } catch (e) {
      error = e;
    }
    expect(isGraphConfigError(error)).toBe(true);
    expect((error as Error).message).toContain(
      "storePermitSlots() needs a Runner of @graph/runtime with a checkpointer",
    );
  });
});
