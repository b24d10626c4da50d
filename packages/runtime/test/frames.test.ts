import { Graph, GraphConfigError, node, route } from "@graph/core";
import { runResultAdapter, selectTree } from "@graph/select";
import { describe, expect, it } from "vitest";
import { type GraphEvent, NodeExecutionError, Runner, type RunResult } from "../src/index.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A pipeline pages → embed → write that records how many frames are unfinished at every step. */
function pipeline(pages: number, window: number, writeMs?: number) {
  const log: string[] = [];
  let inFlight = 0;
  let peak = 0;
  const fetchPages = node(
    { output: "page", frames: { window } },
    async function* fetchPages({ count }: { count: number }) {
      for (let i = 0; i < count; i++) {
        inFlight++;
        peak = Math.max(peak, inFlight);
        log.push(`fetch ${i}`);
        yield { id: i, text: `page ${i}` };
      }
    },
  );
  const embed = node({ output: "vector" }, async function embed({ page }: { page: { id: number; text: string } }) {
    await sleep((page.id * 7) % 5); // out-of-order finishes
    log.push(`embed ${page.id}`);
    return [page.id, page.text.length];
  });
  const write = node({ output: "written" }, async function write({ vector }: { vector: number[] }) {
    await sleep(writeMs ?? (vector[0]! * 3) % 4);
    log.push(`write ${vector[0]}`);
    inFlight--;
    return vector[0]!;
  });
  const graph = new Graph([fetchPages, embed, write]);
  return { graph, peak: () => peak, log, count: pages };
}

describe("frames: a pipelined map over a generator's yields", () => {
  it("runs the consumers once per frame and gathers every output in frame order", async () => {
    const p = pipeline(40, 4);
    const result = await new Runner().run(p.graph, { values: { count: 40 } });
    expect(result.status).toBe("completed");
    expect(result.values.written).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(result.values.vector).toEqual(Array.from({ length: 40 }, (_, i) => [i, `page ${i}`.length]));
    expect((result.values.page as { id: number }[]).map((f) => f.id)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(p.log.filter((l) => l.startsWith("embed")).length).toBe(40);
    expect(p.log.filter((l) => l.startsWith("write")).length).toBe(40);
  });

  it("never has more than `window` frames unfinished (backpressure on the generator)", async () => {
    for (const window of [1, 3, 16]) {
      const p = pipeline(48, window, 15);
      await new Runner().run(p.graph, { values: { count: 48 } });
      expect(p.peak()).toBeLessThanOrEqual(window);
      expect(p.peak()).toBe(window); // the window is used, not just respected
    }
  });

  it("the graph shows the pipeline as one node named like the frames node", () => {
    const p = pipeline(1, 2);
    expect([...p.graph.nodes.keys()]).toEqual(["fetchPages"]);
    expect(p.graph.outputs).toEqual(["page", "vector", "written"]);
    expect([...p.graph.inputs.required]).toEqual(["count"]);
  });

  it("a gather: true node reads the whole lists once the stream ended", async () => {
    const nums = node({ output: "n", frames: true }, async function* nums() {
      yield 1;
      yield 2;
      yield 3;
    });
    const square = node({ output: "sq" }, function square({ n }: { n: number }) {
      return n * n;
    });
    const total = node({ output: "total", gather: true }, function total({ sq }: { sq: number[] }) {
      return sq.reduce((a, b) => a + b, 0);
    });
    const result = await new Runner().run(new Graph([nums, square, total]), { values: {} });
    expect(result.values).toMatchObject({ n: [1, 2, 3], sq: [1, 4, 9], total: 14 });
  });

  it("reports progress as MapProgress (completed frames of frames produced so far)", async () => {
    const events: GraphEvent[] = [];
    const p = pipeline(5, 2);
    await new Runner({ eventProcessors: [{ onEvent: (e) => void events.push(e) }] }).run(p.graph, {
      values: { count: 5 },
    });
    const progress = events.filter((e) => e.type === "MapProgress" && e.nodeName === "fetchPages");
    expect(progress.map((e) => (e as { completed: number }).completed)).toEqual([1, 2, 3, 4, 5]);
    const ends = events.filter((e) => e.type === "NodeEnd" && e.nodeName === "write");
    expect(ends.length).toBe(5);
  });

  it("a failing frame fails the pipeline, naming the frame", async () => {
    const nums = node({ output: "n", frames: true }, async function* nums() {
      for (let i = 0; i < 10; i++) yield i;
    });
    const check = node({ output: "ok" }, function check({ n }: { n: number }) {
      if (n === 4) throw new Error("bad frame");
      return n;
    });
    const error = await new Runner().run(new Graph([nums, check]), { values: {} }).catch((e: unknown) => e);
    expect(NodeExecutionError.is(error)).toBe(true);
    expect((error as NodeExecutionError).nodeName).toBe("nums[4]/check");
    expect(((error as NodeExecutionError).cause as Error).message).toBe("bad frame");
  });

  it("rejects a gate or an interrupt that consumes frames, a non-generator and a window < 1", () => {
    const nums = node({ output: "n", frames: true }, async function* nums() {
      yield 1;
    });
    const decide = route({ targets: ["a"] }, function decide({ n }: { n: number }) {
      return n > 0 ? "a" : "a";
    });
    const a = node({ output: "x" }, function a() {
      return 1;
    });
    const err = (() => {
      try {
        new Graph([nums, decide, a]);
      } catch (e) {
        return e;
      }
    })();
    expect(GraphConfigError.is(err)).toBe(true);
    expect((err as Error).message).toContain("The gate 'decide' in this graph consumes the frames of 'nums'");
    expect((err as Error).message).toContain("gather: true");
    expect(() =>
      node({ output: "n", frames: true }, async function notGen() {
        return 1;
      }),
    ).toThrow("has frames: true, but its function is not a generator (it is async)");
    expect(() =>
      node({ output: ["a", "b"], frames: true }, async function* two() {
        yield [1, 2];
      }),
    ).toThrow("needs exactly one output");
    expect(() =>
      node({ output: "n", frames: { window: 0 } }, async function* w() {
        yield 1;
      }),
    ).toThrow("Node 'w': option 'frames.window' must be an integer ≥ 1, got a number (0).");
  });

  it("stop with completeOnStop keeps the finished frames, in order, and pulls no more", async () => {
    let pulled = 0;
    let stop = () => {};
    const nums = node({ output: "n", frames: { window: 2 } }, async function* nums() {
      for (let i = 0; i < 100; i++) {
        pulled++;
        yield i;
      }
    });
    const slow = node({ output: "m" }, async function slow({ n }: { n: number }) {
      await sleep(2);
      if (n === 5) stop();
      return n + 100;
    });
    const graph = new Graph([nums, slow], { completeOnStop: true });
    const handle = new Runner().start(graph, { values: {} });
    stop = () => void handle.stop();
    const result = await handle.result;
    expect(result.status).toBe("stopped");
    const m = result.values.m as number[];
    // Frame 5's node was running at the stop: it is cut off (as any running node), so frames 0..4 at least are kept.
    expect(m.length).toBeGreaterThanOrEqual(5);
    expect(m).toEqual(Array.from({ length: m.length }, (_, i) => i + 100));
    expect(result.values.n).toEqual(Array.from({ length: m.length }, (_, i) => i));
    expect(pulled).toBeLessThanOrEqual(m.length + 2);
  });

  it("works in a nested graph and in mapOver: each item runs its own stream", async () => {
    const letters = node(
      { output: "letter", frames: { window: 3 } },
      async function* letters({ word }: { word: string }) {
        for (const c of word) yield c;
      },
    );
    const upper = node({ output: "up" }, async function upper({ letter }: { letter: string }) {
      await sleep(1);
      return letter.toUpperCase();
    });
    const join = node({ output: "shout", gather: true }, function join({ up }: { up: string[] }) {
      return up.join("");
    });
    const inner = new Graph([letters, upper, join], { name: "shouter" });
    const nested = await new Runner().run(new Graph([inner.asNode()]), { values: { word: "abc" } });
    expect(nested.values.shout).toBe("ABC");
    expect(nested.values.up).toEqual(["A", "B", "C"]);
    const mapped = await new Runner().run(new Graph([inner.asNode().mapOver("word", { concurrency: 2 })]), {
      values: { word: ["hi", "there", ""] },
    });
    expect(mapped.values.shout).toEqual(["HI", "THERE", ""]);
    expect(mapped.values.up).toEqual([["H", "I"], ["T", "H", "E", "R", "E"], []]);
  });

  it("a frames node named in its options: result.get('<node>/<value>') is typed and returns the per-frame list", async () => {
    const pages = node(
      { name: "pages", output: "page", frames: { window: 2 } },
      async function* pages({ count }: { count: number }) {
        for (let id = 0; id < count; id++) yield { id };
      },
    );
    const embed = node({ name: "embed", output: "vector" }, async function embed({ page }: { page: { id: number } }) {
      await sleep(page.id % 2);
      return [page.id, page.id * 2];
    });
    const write = node({ name: "write", output: "written" }, function write({ vector }: { vector: number[] }) {
      return vector[0]! * 10;
    });
    const total = node(
      { name: "total", output: "sum", gather: true },
      function total({ written }: { written: number[] }) {
        return written.reduce((a, b) => a + b, 0);
      },
    );
    const result = await new Runner().run(new Graph([pages, embed, write, total]), { values: { count: 5 } });
    // Typed paths (no cast): the list of every frame's value, frame i at index i.
    const written: number[] | undefined = result.get("pages/written");
    const vectors: number[][] | undefined = result.get("pages/vector");
    const frames: { id: number }[] | undefined = result.get("pages/page");
    expect(written).toEqual([0, 10, 20, 30, 40]);
    expect(vectors).toEqual([0, 1, 2, 3, 4].map((i) => [i, i * 2]));
    expect(frames).toEqual([0, 1, 2, 3, 4].map((id) => ({ id })));
    expect(result.get("sum")).toBe(100);
    expect(result.has("pages/sum")).toBe(false);
  });

  it("per-frame results are reachable with select under the frames node's name", async () => {
    const p = pipeline(3, 2);
    const result = await new Runner().run(p.graph, { values: { count: 3 } });
    expect(result.get("fetchPages/written" as never)).toEqual([0, 1, 2]);
    const picked = selectTree(result, ["fetchPages/vector"], { adapter: runResultAdapter });
    expect(((picked.values as Record<string, unknown>).fetchPages as RunResult).values).toEqual({
      vector: [
        [0, 6],
        [1, 6],
        [2, 6],
      ],
    });
  });

  it("a generator that throws fails the run with NodeExecutionError naming the frames node", async () => {
    let written = 0;
    const nums = node({ output: "n", frames: { window: 2 } }, async function* nums() {
      yield 1;
      yield 2;
      throw new Error("source broke");
    });
    const keep = node({ output: "k" }, async function keep({ n }: { n: number }) {
      written++;
      return n;
    });
    const error = await new Runner().run(new Graph([nums, keep]), { values: {} }).catch((e: unknown) => e);
    expect(NodeExecutionError.is(error)).toBe(true);
    expect((error as NodeExecutionError).nodeName).toBe("nums");
    expect(((error as NodeExecutionError).cause as Error).message).toBe("source broke");
    expect(written).toBeLessThanOrEqual(2);
  });

  it("runSync refuses a pipeline (frames are pulled asynchronously), even of sync nodes", () => {
    const nums = node({ output: "n", frames: true }, function* nums() {
      yield 1;
    });
    const sq = node({ output: "s" }, function sq({ n }: { n: number }) {
      return n * n;
    });
    // It names the pipeline, and does not claim async nodes where there are none.
    expect(() => new Runner().runSync(new Graph([nums, sq]), { values: {} })).toThrow(
      "runner.runSync() can't run this graph: it streams frames (nums), which are pulled asynchronously.",
    );
    const slow = node({ output: "t" }, async function slow({ s }: { s: number }) {
      return s;
    });
    expect(() => new Runner().runSync(new Graph([nums, sq, slow]), { values: {} })).toThrow(
      "runner.runSync() can't run this graph: it has async nodes (nums/slow); it streams frames (nums), which are pulled asynchronously.",
    );
  });
});
