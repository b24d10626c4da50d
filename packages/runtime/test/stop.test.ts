import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, type NodeContext, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { type GraphEvent, Runner, RunResult } from "../src/index.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Resolves when the signal aborts (at once if it already has). */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

function recorder() {
  const events: GraphEvent[] = [];
  return { events, processor: { onEvent: (e: GraphEvent) => void events.push(e) } };
}

async function collect(events: AsyncIterable<GraphEvent>): Promise<GraphEvent[]> {
  const out: GraphEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

function label(e: GraphEvent): string {
  switch (e.type) {
    case "NodeStart":
    case "NodeEnd":
    case "StreamingChunk":
      return `${e.type}:${e.nodeName}`;
    case "RunEnd":
      return `RunEnd:${e.status}`;
    default:
      return e.type;
  }
}

interface Seen {
  aborted: boolean;
  stopRequested: boolean;
  reason: unknown;
}

/**
 * prepare (sync) → work (async, waits for the stop signal) → after. `started` resolves once `work` is running;
 * `seen` records what `work` observed when the signal fired.
 */
function stoppable() {
  const started = deferred();
  /** While true, `work` waits for the stop; set it to false to let a later run finish. */
  const gate = { block: true };
  const seen: Seen[] = [];
  const calls: string[] = [];
  const prepare = node({ output: "prepared" }, function prepare({ x }: { x: number }) {
    calls.push("prepare");
    return x + 1;
  });
  const work = node({ output: "worked" }, async function work({ prepared }: { prepared: number }, ctx: NodeContext) {
    calls.push("work");
    ctx.signal.addEventListener(
      "abort",
      () => seen.push({ aborted: ctx.signal.aborted, stopRequested: ctx.stopRequested, reason: ctx.signal.reason }),
      { once: true },
    );
    started.resolve();
    if (gate.block) await aborted(ctx.signal);
    return prepared * 100;
  });
  const after = node({ output: "final" }, function after({ worked }: { worked: number }) {
    calls.push("after");
    return worked + 1;
  });
  return { graph: new Graph([prepare, work, after], { name: "stoppable" }), started, seen, calls, gate };
}

describe("stop signals", () => {
  it("handle.stop(info): nodes see the abort, StopRequested carries the info, values so far are kept", async () => {
    const { graph, started, seen, calls } = stoppable();
    const handle = new Runner().start(graph, { values: { x: 1 } });
    const events = collect(handle.events);
    await started.promise;
    handle.stop({ reason: "user" });
    const r = await handle.result;

    expect(r.status).toBe("stopped");
    expect(r.values).toEqual({ prepared: 2 });
    expect(r.error).toBeUndefined();
    expect(r.pause).toBeUndefined();
    expect(calls).toEqual(["prepare", "work"]);
    expect(seen).toEqual([{ aborted: true, stopRequested: true, reason: { reason: "user" } }]);

    const all = await events;
    expect(all.map(label)).toEqual([
      "RunStart",
      "SuperstepStart",
      "NodeStart:prepare",
      "NodeEnd:prepare",
      "SuperstepStart",
      "NodeStart:work",
      "StopRequested",
      "NodeEnd:work",
      "RunEnd:stopped",
    ]);
    const stop = all.find((e) => e.type === "StopRequested");
    expect(stop).toMatchObject({
      type: "StopRequested",
      info: { reason: "user" },
      workflowId: handle.workflowId,
      runId: r.runId,
    });
    expect(all.find((e) => e.type === "NodeEnd" && e.nodeName === "work")).toMatchObject({
      status: "stopped",
      outputs: {},
      truncated: false,
    });
    expect(handle.runId).toBe(r.runId);
  });

  it("handle.stop() a second time is a no-op (one StopRequested)", async () => {
    const { graph, started } = stoppable();
    const { events, processor } = recorder();
    const handle = new Runner({ eventProcessors: [processor] }).start(graph, { values: { x: 1 } });
    await started.promise;
    handle.stop("first");
    handle.stop("second");
    const r = await handle.result;
    expect(r.status).toBe("stopped");
    expect(events.filter((e) => e.type === "StopRequested").map((e) => (e as { info: unknown }).info)).toEqual([
      "first",
    ]);
  });

  it("runner.stop(workflowId, info) stops a live run; false when no such run is live", async () => {
    const { graph, started, seen } = stoppable();
    const { events, processor } = recorder();
    const runner = new Runner({ eventProcessors: [processor] });
    expect(await runner.stop("nope")).toBe(false);
    const running = runner.run(graph, { values: { x: 1 }, workflowId: "wf-stop" });
    await started.promise;
    expect(await runner.stop("wf-stop", "enough")).toBe(true);
    const r = await running;

    expect(r.status).toBe("stopped");
    expect(r.workflowId).toBe("wf-stop");
    expect(r.values).toEqual({ prepared: 2 });
    expect(seen).toEqual([{ aborted: true, stopRequested: true, reason: "enough" }]);
    expect(events.find((e) => e.type === "StopRequested")).toMatchObject({
      info: "enough",
      workflowId: "wf-stop",
      runId: r.runId,
    });
    expect(events.at(-1)).toMatchObject({ type: "RunEnd", status: "stopped", workflowId: "wf-stop" });
    // The run is over: nothing left to stop, and the id can be run again.
    expect(await runner.stop("wf-stop")).toBe(false);
  });

  it("an aborted signal option stops the run with the signal's reason", async () => {
    const { graph, started, seen, calls } = stoppable();
    const { events, processor } = recorder();
    const controller = new AbortController();
    const running = new Runner({ eventProcessors: [processor] }).run(graph, {
      values: { x: 1 },
      signal: controller.signal,
    });
    await started.promise;
    controller.abort("cancelled by caller");
    const r = await running;

    expect(r.status).toBe("stopped");
    expect(r.values).toEqual({ prepared: 2 });
    expect(calls).toEqual(["prepare", "work"]);
    expect(seen).toEqual([{ aborted: true, stopRequested: true, reason: "cancelled by caller" }]);
    expect(events.find((e) => e.type === "StopRequested")).toMatchObject({
      info: "cancelled by caller",
      runId: r.runId,
    });
  });

  it("a signal aborted before the run starts: nothing runs, status stopped", async () => {
    const { graph, calls } = stoppable();
    const { events, processor } = recorder();
    const r = await new Runner({ eventProcessors: [processor] }).run(graph, {
      values: { x: 1 },
      signal: AbortSignal.abort("too late"),
    });
    expect(r.status).toBe("stopped");
    expect(r.values).toEqual({});
    expect(calls).toEqual([]);
    const stop = events.find((e) => e.type === "StopRequested");
    expect(stop).toMatchObject({ info: "too late", runId: r.runId });
    expect(events.at(-1)).toMatchObject({ type: "RunEnd", status: "stopped" });
  });

  it("a stopped workflow resumes with a checkpointer: finished nodes replayed, the stopped node runs again", async () => {
    const { graph, started, calls, gate } = stoppable();
    const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
    const handle = runner.start(graph, { values: { x: 1 }, workflowId: "resume-after-stop" });
    await started.promise;
    handle.stop();
    const r1 = await handle.result;
    expect(r1.status).toBe("stopped");
    expect(calls).toEqual(["prepare", "work"]);

    gate.block = false;
    const r2 = await runner.run(graph, { workflowId: "resume-after-stop" });
    expect(r2.status).toBe("completed");
    expect(calls).toEqual(["prepare", "work", "work", "after"]);
    expect(r2.values).toEqual({ prepared: 2, worked: 200, final: 201 });
    await runner.close();
  });
});

/**
 * write (async generator: "Hello ", topic, then waits for the stop and ends) → summarize;
 * lookup (regular async node waiting for the stop) → useFacts.
 */
function streamingGraph(options: { completeOnStop?: boolean; name?: string } = {}) {
  const chunksOut = deferred();
  const lookupStarted = deferred();
  const calls: string[] = [];
  const summaryCtx: Seen[] = [];
  const write = node({ output: "text" }, async function* write({ topic }: { topic: string }, ctx: NodeContext) {
    calls.push("write");
    yield "Hello ";
    yield topic;
    chunksOut.resolve();
    await aborted(ctx.signal);
    // A well-behaved generator ends when stopped.
  });
  const summarize = node({ output: "summary" }, function summarize({ text }: { text: string }, ctx: NodeContext) {
    calls.push("summarize");
    summaryCtx.push({ aborted: ctx.signal.aborted, stopRequested: ctx.stopRequested, reason: undefined });
    return `summary of ${text}`;
  });
  const lookup = node({ output: "facts" }, async function lookup({ topic }: { topic: string }, ctx: NodeContext) {
    calls.push("lookup");
    lookupStarted.resolve();
    await aborted(ctx.signal);
    return `facts about ${topic}`;
  });
  const useFacts = node({ output: "used" }, function useFacts({ facts }: { facts: string }) {
    calls.push("useFacts");
    return facts;
  });
  const graphOptions = {
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.completeOnStop === undefined ? {} : { completeOnStop: options.completeOnStop }),
  };
  const graph = new Graph([write, summarize, lookup, useFacts], graphOptions);
  return { graph, ready: Promise.all([chunksOut.promise, lookupStarted.promise]), calls, summaryCtx };
}

describe("completeOnStop", () => {
  it("true: a streaming node keeps its partial output (truncated), stopped regular nodes produce nothing, downstream still runs", async () => {
    const { graph, ready, calls, summaryCtx } = streamingGraph({ completeOnStop: true });
    const handle = new Runner().start(graph, { values: { topic: "cats" } });
    const events = collect(handle.events);
    await ready;
    handle.stop("enough");
    const r = await handle.result;
    const all = await events;

    expect(r.status).toBe("stopped");
    expect(r.values).toEqual({ text: "Hello cats", summary: "summary of Hello cats" });
    expect(calls.sort()).toEqual(["lookup", "summarize", "write"]);
    // A node that starts after the stop still sees it.
    expect(summaryCtx).toEqual([{ aborted: true, stopRequested: true, reason: undefined }]);

    const writeEnd = all.find((e) => e.type === "NodeEnd" && e.nodeName === "write");
    expect(writeEnd).toMatchObject({
      outputs: { text: "Hello cats" },
      truncated: true,
      replayed: false,
      cached: false,
    });
    expect(all.find((e) => e.type === "NodeEnd" && e.nodeName === "lookup")).toMatchObject({
      status: "stopped",
      outputs: {},
      truncated: false,
    });
    expect(all.find((e) => e.type === "NodeEnd" && e.nodeName === "summarize")).toMatchObject({
      status: "completed",
      outputs: { summary: "summary of Hello cats" },
      truncated: false,
    });
    expect(all.some((e) => e.type === "NodeStart" && e.nodeName === "useFacts")).toBe(false);
    expect(
      all
        .filter((e) => e.type === "StreamingChunk")
        .map((e) => [(e as { index: number }).index, (e as { chunk: unknown }).chunk]),
    ).toEqual([
      [0, "Hello "],
      [1, "cats"],
    ]);
    const order = all
      .filter((e) => e.type !== "SuperstepStart" && e.type !== "NodeStart" && e.type !== "StreamingChunk")
      .map(label);
    // Siblings of one superstep end in the scheduler's order (upstream first, then by name: `lookup` before
    // `write`), never in node-list order (SPEC §10, order independence).
    expect(order).toEqual([
      "RunStart",
      "StopRequested",
      "NodeEnd:lookup",
      "NodeEnd:write",
      "NodeEnd:summarize",
      "RunEnd:stopped",
    ]);
  });

  it("false (the default): everything stops at once, downstream never runs", async () => {
    const { graph, ready, calls } = streamingGraph();
    expect(graph.completeOnStop).toBe(false);
    const handle = new Runner().start(graph, { values: { topic: "cats" } });
    const events = collect(handle.events);
    await ready;
    handle.stop();
    const r = await handle.result;
    const all = await events;

    expect(r.status).toBe("stopped");
    expect(r.values).toEqual({});
    expect(calls.sort()).toEqual(["lookup", "write"]);
    expect(all.find((e) => e.type === "NodeEnd" && e.nodeName === "write")).toMatchObject({
      outputs: {},
      truncated: false,
    });
    expect(all.find((e) => e.type === "NodeEnd" && e.nodeName === "lookup")).toMatchObject({
      outputs: {},
      truncated: false,
    });
    expect(all.some((e) => e.type === "NodeStart" && (e.nodeName === "summarize" || e.nodeName === "useFacts"))).toBe(
      false,
    );
    // Chunks streamed before the stop were still reported.
    expect(all.filter((e) => e.type === "StreamingChunk").map((e) => (e as { chunk: unknown }).chunk)).toEqual([
      "Hello ",
      "cats",
    ]);
    expect(all.at(-1)).toMatchObject({ type: "RunEnd", status: "stopped" });
  });

  it("outer false + inner true (asNode override): the child completes on stop, the parent stops at once", async () => {
    const inner = streamingGraph({ name: "inner" }); // graph option false, overridden below
    const outerCalls: string[] = [];
    const outerAfter = node({ output: "final" }, function outerAfter({ summary }: { summary: string }) {
      outerCalls.push("outerAfter");
      return summary.toUpperCase();
    });
    const outer = new Graph([inner.graph.asNode({ completeOnStop: true }), outerAfter], {
      name: "outer",
      completeOnStop: false,
    });
    const { events, processor } = recorder();
    const handle = new Runner({ eventProcessors: [processor] }).start(outer, {
      values: { topic: "cats" },
      workflowId: "o1",
    });
    await inner.ready;
    handle.stop();
    const r = await handle.result;

    expect(r.status).toBe("stopped");
    const child = r.get("inner") as RunResult;
    expect(child).toBeInstanceOf(RunResult);
    expect(child.status).toBe("stopped");
    expect(child.values).toEqual({ text: "Hello cats", summary: "summary of Hello cats" });
    expect(inner.calls.sort()).toEqual(["lookup", "summarize", "write"]);
    // The boundary completed with partial output; the outer graph (completeOnStop false) runs nothing more.
    expect(outerCalls).toEqual([]);
    expect(r.values).toEqual({ text: "Hello cats", summary: "summary of Hello cats", inner: child });
    expect(events.find((e) => e.type === "NodeEnd" && e.nodeName === "inner" && e.workflowId === "o1")).toMatchObject({
      outputs: { text: "Hello cats", summary: "summary of Hello cats" },
      truncated: true,
    });
    expect(events.find((e) => e.type === "NodeEnd" && e.nodeName === "write")).toMatchObject({
      workflowId: "o1/inner",
      truncated: true,
    });
  });

  it("outer true + inner false (asNode override): the child stops at once, the parent completes its other work", async () => {
    const inner = streamingGraph({ name: "inner", completeOnStop: true }); // graph option true, overridden below
    const outerGenDone = deferred();
    const outerCalls: string[] = [];
    const outerGen = node(
      { output: "outerText" },
      async function* outerGen({ topic }: { topic: string }, ctx: NodeContext) {
        yield "Outer ";
        yield topic;
        outerGenDone.resolve();
        await aborted(ctx.signal);
      },
    );
    const outerAfter = node({ output: "final" }, function outerAfter({ outerText }: { outerText: string }) {
      outerCalls.push("outerAfter");
      return `[${outerText}]`;
    });
    const afterInner = node({ output: "afterInner" }, function afterInner({ summary }: { summary: string }) {
      outerCalls.push("afterInner");
      return summary;
    });
    const outer = new Graph([inner.graph.asNode({ completeOnStop: false }), outerGen, outerAfter, afterInner], {
      name: "outer",
      completeOnStop: true,
    });
    const { events, processor } = recorder();
    const handle = new Runner({ eventProcessors: [processor] }).start(outer, {
      values: { topic: "cats" },
      workflowId: "o2",
    });
    await Promise.all([inner.ready, outerGenDone.promise]);
    handle.stop();
    const r = await handle.result;

    expect(r.status).toBe("stopped");
    const child = r.get("inner") as RunResult;
    expect(child).toBeInstanceOf(RunResult);
    expect(child.status).toBe("stopped");
    expect(child.values).toEqual({});
    expect(inner.calls.sort()).toEqual(["lookup", "write"]);
    expect(outerCalls).toEqual(["outerAfter"]);
    expect(r.values).toEqual({ outerText: "Outer cats", final: "[Outer cats]", inner: child });
    expect(events.find((e) => e.type === "NodeEnd" && e.nodeName === "outerGen")).toMatchObject({
      truncated: true,
      outputs: { outerText: "Outer cats" },
    });
    expect(events.find((e) => e.type === "NodeEnd" && e.nodeName === "inner" && e.workflowId === "o2")).toMatchObject({
      outputs: {},
      truncated: false,
    });
  });

  it("without an override the inner graph's own option decides its boundary", async () => {
    const inner = streamingGraph({ name: "inner", completeOnStop: true });
    const outer = new Graph([inner.graph.asNode()], { name: "outer" });
    expect(outer.completeOnStop).toBe(false);
    const handle = new Runner().start(outer, { values: { topic: "cats" } });
    await inner.ready;
    handle.stop();
    const r = await handle.result;
    expect(r.status).toBe("stopped");
    expect((r.get("inner") as RunResult).values).toEqual({ text: "Hello cats", summary: "summary of Hello cats" });
    expect(r.get("inner/summary")).toBe("summary of Hello cats");
  });
});

describe("no dangling work after a stop", () => {
  it("a node that ignores the signal: the run ends promptly and its late result is discarded", async () => {
    const started = deferred();
    const lateDone = deferred();
    let release!: () => void;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const quick = node({ output: "quick" }, function quick({ x }: { x: number }) {
      return x * 2;
    });
    const stubborn = node({ output: "late" }, async function stubborn({ x }: { x: number }) {
      started.resolve();
      // Ignores ctx.signal on purpose: a 2 s timer (released early by the test once the run is over).
      await new Promise<void>((resolve) => {
        release = resolve;
        timer = setTimeout(resolve, 2000);
      });
      lateDone.resolve();
      return `late ${x}`;
    });
    const consume = node({ output: "consumed" }, function consume({ late }: { late: string }) {
      return late;
    });
    const { events, processor } = recorder();
    const t0 = performance.now();
    const handle = new Runner({ eventProcessors: [processor] }).start(new Graph([quick, stubborn, consume]), {
      values: { x: 21 },
    });
    await started.promise;
    handle.stop();
    const r = await handle.result;
    const elapsed = performance.now() - t0;

    expect(elapsed).toBeLessThan(1000);
    expect(r.status).toBe("stopped");
    expect(r.values).toEqual({ quick: 42 });
    const runEnd = events.find((e) => e.type === "RunEnd");
    expect(runEnd).toMatchObject({ status: "stopped" });
    expect((runEnd as { durationMs: number }).durationMs).toBeLessThan(1000);
    const eventCount = events.length;

    // Let the ignored work finish: nothing it produces reaches the result or the event stream.
    release();
    clearTimeout(timer);
    await lateDone.promise;
    await sleep(20);
    expect(r.values).toEqual({ quick: 42 });
    expect(events.length).toBe(eventCount);
    expect(events.at(-1)).toMatchObject({ type: "RunEnd", status: "stopped" });
  });

  it("a generator that ignores the signal: partial output is fixed at the stop, no chunk arrives after the run ended", async () => {
    const twoChunks = deferred();
    let release!: () => void;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const write = node({ output: "text" }, async function* write() {
      yield "a";
      yield "b";
      twoChunks.resolve();
      await new Promise<void>((resolve) => {
        release = resolve;
        timer = setTimeout(resolve, 2000);
      });
      yield "c";
      yield "d";
    });
    const shout = node({ output: "loud" }, function shout({ text }: { text: string }) {
      return text.toUpperCase();
    });
    const { events, processor } = recorder();
    const t0 = performance.now();
    const handle = new Runner({ eventProcessors: [processor] }).start(
      new Graph([write, shout], { completeOnStop: true }),
    );
    await twoChunks.promise;
    handle.stop();
    const r = await handle.result;

    expect(performance.now() - t0).toBeLessThan(1000);
    expect(r.status).toBe("stopped");
    expect(r.values).toEqual({ text: "ab", loud: "AB" });
    const eventCount = events.length;
    expect(events.at(-1)).toMatchObject({ type: "RunEnd", status: "stopped" });

    release();
    clearTimeout(timer);
    await sleep(30);
    expect(r.values).toEqual({ text: "ab", loud: "AB" });
    const late = events.slice(eventCount).map(label);
    expect(late).toEqual([]);
    expect(events.filter((e) => e.type === "StreamingChunk").map((e) => (e as { index: number }).index)).toEqual([
      0, 1,
    ]);
  });

  it("a run stopped in a nested graph leaves no work behind in the child either", async () => {
    const started = deferred();
    let release!: () => void;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finished = deferred();
    const stubborn = node({ output: "late" }, async function stubborn({ x }: { x: number }) {
      started.resolve();
      await new Promise<void>((resolve) => {
        release = resolve;
        timer = setTimeout(resolve, 2000);
      });
      finished.resolve();
      return x;
    });
    const { events, processor } = recorder();
    const outer = new Graph([new Graph([stubborn], { name: "child" }).asNode()], { name: "parent" });
    const t0 = performance.now();
    const handle = new Runner({ eventProcessors: [processor] }).start(outer, { values: { x: 1 }, workflowId: "p" });
    await started.promise;
    handle.stop();
    const r = await handle.result;

    expect(performance.now() - t0).toBeLessThan(1000);
    expect(r.status).toBe("stopped");
    expect((r.get("child") as RunResult).status).toBe("stopped");
    expect(r.values).toEqual({ child: r.get("child") });
    const runEnds = events
      .filter((e) => e.type === "RunEnd")
      .map((e) => `${e.workflowId}:${(e as { status: string }).status}`);
    expect(runEnds).toEqual(["p/child:stopped", "p:stopped"]);
    const eventCount = events.length;
    release();
    clearTimeout(timer);
    await finished.promise;
    await sleep(20);
    expect(events.length).toBe(eventCount);
  });
});
