import { END, Graph, type NodeContext, node, route } from "@graph/core";
import { describe, expect, it } from "vitest";
import { type GraphEvent, Runner, RunResult } from "../src/index.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function recorder() {
  const events: GraphEvent[] = [];
  return { events, processor: { onEvent: (e: GraphEvent) => void events.push(e) } };
}

type Chunk = Extract<GraphEvent, { type: "StreamingChunk" }>;
const chunksOf = (events: readonly GraphEvent[], nodeName?: string): Chunk[] =>
  events.filter((e): e is Chunk => e.type === "StreamingChunk" && (nodeName === undefined || e.nodeName === nodeName));

async function runRecorded(graph: Graph, values: Record<string, unknown> = {}) {
  const { events, processor } = recorder();
  const result = await new Runner({ eventProcessors: [processor] }).run(graph, { values });
  return { result, events };
}

describe("streaming nodes: chunks and output", () => {
  it("a sync generator emits StreamingChunk 0..n-1; its output is the joined strings", async () => {
    const words = node({ output: "text" }, function* words({ topic }: { topic: string }) {
      yield "a ";
      yield "story ";
      yield `about ${topic}`;
    });
    const count = node({ output: "length" }, function count({ text }: { text: string }) {
      return text.length;
    });
    const g = new Graph([words, count]);
    expect(g.hasAsyncNodes).toBe(false);
    const { result, events } = await runRecorded(g, { topic: "cats" });

    expect(result.status).toBe("completed");
    expect(result.values).toEqual({ text: "a story about cats", length: 18 });
    const chunks = chunksOf(events, "words");
    expect(chunks.map((c) => [c.index, c.chunk])).toEqual([
      [0, "a "],
      [1, "story "],
      [2, "about cats"],
    ]);
    // Chunks come between the node's start and end, with the node's span.
    const start = events.findIndex((e) => e.type === "NodeStart" && e.nodeName === "words");
    const end = events.findIndex((e) => e.type === "NodeEnd" && e.nodeName === "words");
    expect(events.slice(start + 1, end).map((e) => e.type)).toEqual([
      "StreamingChunk",
      "StreamingChunk",
      "StreamingChunk",
    ]);
    expect(events[end]).toMatchObject({ outputs: { text: "a story about cats" }, truncated: false });
    const spanId = events[start]!.spanId;
    expect(chunks.every((c) => c.spanId === spanId)).toBe(true);
  });

  it("a sync generator runs under runSync too", () => {
    const words = node({ output: "text" }, function* words() {
      yield "x";
      yield "y";
    });
    const { events, processor } = recorder();
    const r = new Runner({ eventProcessors: [processor] }).runSync(new Graph([words]));
    expect(r.values).toEqual({ text: "xy" });
    expect(chunksOf(events).map((c) => c.index)).toEqual([0, 1]);
  });

  it("an async generator's output is its return value when it returns one", async () => {
    const draft = node({ output: "draft" }, async function* draft({ topic }: { topic: string }) {
      yield "thinking";
      await sleep(1);
      yield "writing";
      return { title: topic, words: 2 };
    });
    const { result, events } = await runRecorded(new Graph([draft]), { topic: "cats" });
    expect(result.values).toEqual({ draft: { title: "cats", words: 2 } });
    expect(chunksOf(events).map((c) => [c.nodeName, c.index, c.chunk])).toEqual([
      ["draft", 0, "thinking"],
      ["draft", 1, "writing"],
    ]);
  });

  it("an async generator that returns nothing and yields strings outputs the joined strings", async () => {
    const draft = node({ output: "draft" }, async function* draft() {
      for (const part of ["Dear ", "reader", ", hi."]) {
        await sleep(1);
        yield part;
      }
      return undefined;
    });
    const { result, events } = await runRecorded(new Graph([draft]));
    expect(result.values).toEqual({ draft: "Dear reader, hi." });
    expect(chunksOf(events).map((c) => c.index)).toEqual([0, 1, 2]);
  });

  it("non-string chunks: the output is the array of chunks (sync and async)", async () => {
    const nums = node({ output: "nums" }, async function* nums() {
      yield 1;
      yield 2;
      yield 3;
    });
    const mixed = node({ output: "mixed" }, function* mixed() {
      yield "a";
      yield { b: 1 };
      yield 2;
    });
    const { result, events } = await runRecorded(new Graph([nums, mixed]));
    expect(result.values).toEqual({ nums: [1, 2, 3], mixed: ["a", { b: 1 }, 2] });
    expect(chunksOf(events, "nums").map((c) => [c.index, c.chunk])).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
    ]);
    expect(chunksOf(events, "mixed").map((c) => [c.index, c.chunk])).toEqual([
      [0, "a"],
      [1, { b: 1 }],
      [2, 2],
    ]);
  });

  it("a generator that throws fails the run; chunks before the throw were streamed", async () => {
    const boom = new Error("generator broke");
    const bad = node({ output: "text" }, async function* bad() {
      yield "ok";
      throw boom;
    });
    const { events, processor } = recorder();
    const r = await new Runner({ eventProcessors: [processor] }).run(new Graph([bad]), { errorHandling: "continue" });
    expect(r.status).toBe("failed");
    expect(r.error).toMatchObject({ _tag: "NodeExecutionError", nodeName: "bad", cause: boom });
    expect(chunksOf(events).map((c) => c.chunk)).toEqual(["ok"]);
  });

  it("ctx.emit(chunk) from a regular async node produces StreamingChunk events; the output is the return value", async () => {
    const progress = node({ output: "done" }, async function progress({ steps }: { steps: number }, ctx: NodeContext) {
      for (let i = 0; i < steps; i++) {
        ctx.emit({ step: i, of: steps });
        await sleep(1);
      }
      return "finished";
    });
    const { result, events } = await runRecorded(new Graph([progress]), { steps: 3 });
    expect(result.values).toEqual({ done: "finished" });
    const chunks = chunksOf(events, "progress");
    expect(chunks.map((c) => [c.index, c.chunk])).toEqual([
      [0, { step: 0, of: 3 }],
      [1, { step: 1, of: 3 }],
      [2, { step: 2, of: 3 }],
    ]);
    const start = events.find((e) => e.type === "NodeStart" && e.nodeName === "progress")!;
    expect(chunks.every((c) => c.spanId === start.spanId)).toBe(true);
    expect(events.find((e) => e.type === "NodeEnd" && e.nodeName === "progress")).toMatchObject({
      outputs: { done: "finished" },
    });
  });

  it("ctx.emit from a sync node works too, with its own index sequence per node", async () => {
    const a = node({ name: "a", inputs: [], output: "a" }, (_inputs: unknown, ctx: NodeContext) => {
      ctx.emit("a0");
      ctx.emit("a1");
      return 1;
    });
    const b = node({ output: "b" }, function b({ a }: { a: number }, ctx: NodeContext) {
      ctx.emit("b0");
      return a + 1;
    });
    const { result, events } = await runRecorded(new Graph([a, b]));
    expect(result.values).toEqual({ a: 1, b: 2 });
    expect(chunksOf(events).map((c) => `${c.nodeName}:${c.index}:${String(c.chunk)}`)).toEqual([
      "a:0:a0",
      "a:1:a1",
      "b:0:b0",
    ]);
  });
});

describe("streaming nodes: live delivery and backpressure", () => {
  it("stream() delivers a chunk while the generator is still running", async () => {
    let produced = 0;
    const producedAt: number[] = [];
    const slow = node({ output: "text" }, async function* slow() {
      for (let i = 0; i < 4; i++) {
        if (i > 0) await sleep(20);
        produced++;
        producedAt.push(performance.now());
        yield `c${i}`;
      }
    });
    let producedWhenFirstSeen = -1;
    let firstSeenAt = 0;
    const order: string[] = [];
    for await (const e of new Runner().stream(new Graph([slow]))) {
      if (e.type === "StreamingChunk") {
        order.push(`chunk${e.index}`);
        if (e.index === 0) {
          producedWhenFirstSeen = produced;
          firstSeenAt = performance.now();
        }
      }
      if (e.type === "NodeEnd") order.push(`end:${JSON.stringify(e.outputs)}`);
      if (e.type === "RunEnd") order.push(`run:${e.status}`);
    }
    expect(producedWhenFirstSeen).toBeGreaterThanOrEqual(1);
    expect(producedWhenFirstSeen).toBeLessThan(3);
    expect(firstSeenAt).toBeLessThan(producedAt[2]!);
    expect(order).toEqual(["chunk0", "chunk1", "chunk2", "chunk3", 'end:{"text":"c0c1c2c3"}', "run:completed"]);
  });

  it("start().events delivers chunks live as well, and the result matches", async () => {
    const seenBeforeEnd: number[] = [];
    let finished = false;
    const slow = node({ output: "text" }, async function* slow() {
      for (let i = 0; i < 3; i++) {
        await sleep(15);
        yield String(i);
      }
      finished = true;
    });
    const handle = new Runner().start(new Graph([slow]));
    for await (const e of handle.events) if (e.type === "StreamingChunk" && !finished) seenBeforeEnd.push(e.index);
    expect(seenBeforeEnd.length).toBeGreaterThanOrEqual(2);
    expect((await handle.result).values).toEqual({ text: "012" });
  });

  it("backpressure: a generator never runs more than ~eventBufferSize events ahead of a slow consumer", async () => {
    const bufferSize = 4;
    const total = 50;
    let produced = 0;
    let received = 0;
    const lags: number[] = [];
    const many = node({ output: "count" }, async function* many() {
      for (let i = 0; i < total; i++) {
        produced++;
        lags.push(produced - received);
        yield i;
      }
      return produced;
    });
    const indexes: number[] = [];
    let result: unknown;
    for await (const e of new Runner({ eventBufferSize: bufferSize }).stream(new Graph([many]))) {
      if (e.type === "StreamingChunk") {
        received++;
        indexes.push(e.index);
      }
      if (e.type === "NodeEnd") result = e.outputs;
      await sleep(10);
    }
    expect(indexes).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(result).toEqual({ count: total });
    expect(lags).toHaveLength(total);
    const maxLag = Math.max(...lags);
    // The producer does run ahead (the buffer is used) but never by much more than the buffer.
    expect(maxLag).toBeGreaterThanOrEqual(bufferSize - 1);
    expect(maxLag).toBeLessThanOrEqual(bufferSize + 2);
  });

  it("a consumer that stops reading early does not block the run", async () => {
    let produced = 0;
    const many = node({ output: "count" }, async function* many() {
      for (let i = 0; i < 30; i++) {
        produced++;
        yield i;
      }
      return produced;
    });
    const handle = new Runner({ eventBufferSize: 2 }).start(new Graph([many]));
    for await (const e of handle.events) if (e.type === "StreamingChunk" && e.index === 1) break;
    const r = await handle.result;
    expect(r.status).toBe("completed");
    expect(r.values).toEqual({ count: 30 });
  });
});

describe("events", () => {
  /** prepare → inner graph (embed → loop with a gate) → finish; plus a streaming node at the top. */
  function eventfulGraph() {
    const embed = node({ output: "vec" }, async function embed({ text }: { text: string }) {
      await sleep(1);
      return text.length;
    });
    const bump = node({ output: "n" }, function bump({ n }: { n: number }) {
      return n + 1;
    });
    const more = route({ targets: ["bump", END] }, function more({ n }: { n: number }) {
      return n >= 2 ? END : "bump";
    });
    const inner = new Graph([embed, bump, more], { name: "inner" }).bind({ n: 0 });
    const prepare = node({ output: "text" }, function prepare({ q }: { q: string }) {
      return q.trim();
    });
    const stream = node({ output: "story" }, async function* stream({ text }: { text: string }) {
      yield text;
      yield "!";
    });
    const finish = node({ output: "answer" }, function finish({ vec, story }: { vec: number; story: string }) {
      return `${story}:${vec}`;
    });
    return new Graph([prepare, inner.asNode(), stream, finish], { name: "top" });
  }

  it("every event has runId, workflowId, spanId, parentSpanId and timestamp", async () => {
    const { events, processor } = recorder();
    const before = Date.now();
    const r = await new Runner({ eventProcessors: [processor] }).run(eventfulGraph(), {
      values: { q: " hi " },
      workflowId: "ev",
    });
    const after = Date.now();
    expect(r.status).toBe("completed");
    expect(r.values.answer).toBe("hi!:2");
    expect(r.get("inner/n")).toBe(2);

    const types = new Set(events.map((e) => e.type));
    for (const t of ["RunStart", "RunEnd", "SuperstepStart", "NodeStart", "NodeEnd", "StreamingChunk", "RouteDecision"])
      expect(types.has(t as GraphEvent["type"])).toBe(true);
    for (const e of events) {
      expect(
        Object.hasOwn(e, "runId") &&
          Object.hasOwn(e, "workflowId") &&
          Object.hasOwn(e, "spanId") &&
          Object.hasOwn(e, "parentSpanId") &&
          Object.hasOwn(e, "timestamp"),
      ).toBe(true);
      expect(e.runId).toBe(r.runId);
      expect(["ev", "ev/inner"]).toContain(e.workflowId);
      expect(typeof e.spanId).toBe("string");
      expect(e.spanId.length).toBeGreaterThan(0);
      expect(e.parentSpanId === undefined || typeof e.parentSpanId === "string").toBe(true);
      expect(e.timestamp).toBeGreaterThanOrEqual(before);
      expect(e.timestamp).toBeLessThanOrEqual(after);
    }
    expect(events[0]).toMatchObject({
      type: "RunStart",
      workflowId: "ev",
      parentSpanId: undefined,
      depth: 0,
      graphName: "top",
    });
    expect(events.at(-1)).toMatchObject({ type: "RunEnd", workflowId: "ev", status: "completed" });
  });

  it("spans form a tree: a nested run's RunStart has the GraphNode's NodeStart span as parent", async () => {
    const { events, processor } = recorder();
    await new Runner({ eventProcessors: [processor] }).run(eventfulGraph(), {
      values: { q: "hi" },
      workflowId: "tree",
    });

    const topStart = events.find((e) => e.type === "RunStart" && e.workflowId === "tree")!;
    const graphNodeStart = events.find((e) => e.type === "NodeStart" && e.nodeName === "inner")!;
    const innerStart = events.find((e) => e.type === "RunStart" && e.workflowId === "tree/inner")!;
    expect(graphNodeStart.parentSpanId).toBe(topStart.spanId);
    expect(innerStart).toMatchObject({ parentSpanId: graphNodeStart.spanId, depth: 1, graphName: "inner" });
    expect(innerStart.spanId).not.toBe(graphNodeStart.spanId);
    const innerEnd = events.find((e) => e.type === "RunEnd" && e.workflowId === "tree/inner")!;
    expect(innerEnd).toMatchObject({
      spanId: innerStart.spanId,
      parentSpanId: graphNodeStart.spanId,
      status: "completed",
    });

    // Node events of the child hang under the child run; node spans are unique.
    const innerNodeStarts = events.filter((e) => e.type === "NodeStart" && e.workflowId === "tree/inner");
    expect(innerNodeStarts.length).toBeGreaterThanOrEqual(4);
    for (const e of innerNodeStarts) expect(e.parentSpanId).toBe(innerStart.spanId);
    const nodeSpans = events.filter((e) => e.type === "NodeStart").map((e) => e.spanId);
    expect(new Set(nodeSpans).size).toBe(nodeSpans.length);
    // NodeEnd (and chunks) share the span of their NodeStart.
    for (const end of events.filter((e) => e.type === "NodeEnd")) {
      const starts = events.filter((e) => e.type === "NodeStart" && e.spanId === end.spanId);
      expect(starts).toHaveLength(1);
      expect((starts[0] as { nodeName: string }).nodeName).toBe((end as { nodeName: string }).nodeName);
    }
    const streamStart = events.find((e) => e.type === "NodeStart" && e.nodeName === "stream")!;
    expect(chunksOf(events, "stream").map((c) => [c.spanId, c.parentSpanId])).toEqual([
      [streamStart.spanId, topStart.spanId],
      [streamStart.spanId, topStart.spanId],
    ]);
    // Order: the child's whole run sits between the GraphNode's NodeStart and NodeEnd.
    const i = (e: GraphEvent) => events.indexOf(e);
    const graphNodeEnd = events.find((e) => e.type === "NodeEnd" && e.nodeName === "inner" && e.workflowId === "tree")!;
    expect(i(graphNodeStart)).toBeLessThan(i(innerStart));
    expect(i(innerEnd)).toBeLessThan(i(graphNodeEnd));
    expect(graphNodeEnd).toMatchObject({ outputs: { vec: 2, n: 2 } });
  });

  it("a failing event processor (sync throw or rejected promise) never fails a run", async () => {
    const { events, processor } = recorder();
    let thrown = 0;
    let rejected = 0;
    const throwing = {
      onEvent() {
        thrown++;
        throw new Error("processor throws");
      },
      shutdown() {
        throw new Error("shutdown throws");
      },
    };
    const rejecting = {
      onEvent: (): Promise<void> => {
        rejected++;
        return Promise.reject(new Error("processor rejects"));
      },
    };
    const asyncThrowing = {
      async onEvent(e: GraphEvent) {
        await sleep(0);
        if (e.type === "NodeEnd") throw new Error("async processor throws");
      },
    };
    const runner = new Runner({ eventProcessors: [throwing, rejecting, asyncThrowing, processor] });
    const r = await runner.run(eventfulGraph(), { values: { q: "hi" } });
    expect(r.status).toBe("completed");
    expect(r.values.answer).toBe("hi!:2");
    expect(thrown).toBe(events.length);
    expect(rejected).toBe(events.length);
    expect(events.at(-1)).toMatchObject({ type: "RunEnd", status: "completed" });

    // Also through stream(): the subscriber still gets every event.
    const firstRun = events.slice();
    const streamed: GraphEvent[] = [];
    for await (const e of runner.stream(eventfulGraph(), { values: { q: "hi" } })) streamed.push(e);
    expect(streamed.at(-1)).toMatchObject({ type: "RunEnd", status: "completed" });
    expect(streamed.map((e) => e.type)).toEqual(firstRun.map((e) => e.type));
    expect(events.slice(firstRun.length).map((e) => e.type)).toEqual(streamed.map((e) => e.type));
    await sleep(5); // let the async processor's rejections settle (they must not surface as unhandled)
    await expect(runner.close()).resolves.toBeUndefined();
  });

  it("nested results stay RunResults in values", async () => {
    const r = await new Runner().run(eventfulGraph(), { values: { q: "x" } });
    expect(r.values.inner).toBeInstanceOf(RunResult);
    expect((r.values.inner as RunResult).status).toBe("completed");
  });
});
