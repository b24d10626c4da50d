import { Graph, type NodeContext, node } from "@graph/core";
import { afterEach, describe, expect, it } from "vitest";
import { type GraphEvent, Runner } from "../src/index.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One node streaming `n` chunks: n + 5 events (RunStart, SuperstepStart, NodeStart, chunks, NodeEnd, RunEnd). */
const chatty = (n: number) =>
  new Graph([
    node({ output: "count" }, async function* chatter() {
      for (let i = 0; i < n; i++) {
        if (i % 500 === 0) await sleep(0);
        yield i;
      }
    }),
  ]);

function recorder() {
  const events: GraphEvent[] = [];
  return { events, processor: { onEvent: (e: GraphEvent) => void events.push(e) } };
}

async function readAll(events: AsyncIterable<GraphEvent>): Promise<GraphEvent[]> {
  const out: GraphEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

const warnings: Error[] = [];
const onWarning = (w: Error) => void warnings.push(w);
process.on("warning", onWarning);
afterEach(() => {
  warnings.length = 0;
});

describe("start(): an unread handle.events never holds the run back", () => {
  it("a 5,000-chunk run nobody reads resolves; a late reader sees EventsDropped with the exact count, then the newest 1,000 events", async () => {
    const { events: all, processor } = recorder();
    const runner = new Runner({ eventProcessors: [processor] });
    const handle = runner.start(chatty(5000));
    const result = await handle.result;
    expect(result.status).toBe("completed");
    expect(all).toHaveLength(5005);

    const seen = await readAll(handle.events);
    expect(seen).toHaveLength(1001);
    const marker = seen[0]!;
    expect(marker.type).toBe("EventsDropped");
    expect(marker).toMatchObject({ type: "EventsDropped", count: 4005, workflowId: handle.workflowId });
    expect(seen.slice(1)).toEqual(all.slice(4005));
    expect(seen.at(-1)!.type).toBe("RunEnd");
    // One warning per process, however many handles drop events.
    await sleep(0);
    const ours = warnings.filter((w) => (w as Error & { code?: string }).code === "GRAPH_EVENTS_DROPPED");
    expect(ours).toHaveLength(1);
    expect(ours[0]!.message).toContain("nobody reads it");
    expect(ours[0]!.message).toContain("eventBufferSize");
    await runner.close();
  });

  it("a reader that reads the first event then falls behind gets one EventsDropped for exactly what it missed", async () => {
    const { events: all, processor } = recorder();
    const runner = new Runner({ eventProcessors: [processor] });
    const handle = runner.start(chatty(3000), { eventBufferSize: 100 });
    const iterator = handle.events[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value).toMatchObject({ type: "RunStart" });
    await handle.result;
    const rest: GraphEvent[] = [];
    for (let r = await iterator.next(); r.done !== true; r = await iterator.next()) rest.push(r.value);
    expect(rest[0]).toMatchObject({ type: "EventsDropped", count: all.length - 1 - 100 });
    expect(rest.slice(1)).toEqual(all.slice(-100));
    // No warning the second time in this process.
    expect(warnings.filter((w) => (w as Error & { code?: string }).code === "GRAPH_EVENTS_DROPPED")).toHaveLength(0);
    await runner.close();
  });

  it("eventBufferSize on start() bounds that handle: 3,005 events with size 10 → EventsDropped(2995) + the last 10", async () => {
    const runner = new Runner();
    const handle = runner.start(chatty(3000), { eventBufferSize: 10 });
    expect((await handle.result).status).toBe("completed");
    const seen = await readAll(handle.events);
    expect(seen.map((e) => e.type)).toEqual(["EventsDropped", ...Array(8).fill("StreamingChunk"), "NodeEnd", "RunEnd"]);
    expect(seen[0]).toMatchObject({ count: 2995 });
    await runner.close();
  });

  it("an invalid eventBufferSize on start() is rejected with InvalidOptionError", async () => {
    const runner = new Runner();
    const handle = runner.start(chatty(1), { eventBufferSize: 0 });
    await expect(handle.result).rejects.toMatchObject({ _tag: "InvalidOptionError", option: "eventBufferSize" });
  });

  it("stop() ends a run whose 5,000+ events nobody reads: result `stopped`", async () => {
    const runner = new Runner();
    let emitted = 0;
    const endless = new Graph([
      node({ output: "count", inputs: [] }, async function* endless(_: Record<string, never>, ctx: NodeContext) {
        for (let i = 0; !ctx.signal.aborted; i++) {
          if (i % 500 === 0) await sleep(0);
          emitted++;
          yield i;
        }
      }),
    ]);
    const handle = runner.start(endless);
    while (emitted < 5000) await sleep(5);
    handle.stop({ reason: "enough" });
    const result = await handle.result;
    expect(result.status).toBe("stopped");
    const seen = await readAll(handle.events);
    expect(seen[0]).toMatchObject({ type: "EventsDropped" });
    expect(seen).toHaveLength(1001);
    expect(seen.at(-1)).toMatchObject({ type: "RunEnd", status: "stopped" });
    await runner.close();
  });
});

describe("stream(): the reader sets the pace", () => {
  it("a slow stream() reader loses nothing (backpressure, no EventsDropped)", async () => {
    const runner = new Runner({ eventBufferSize: 50 });
    const seen: GraphEvent[] = [];
    for await (const e of runner.stream(chatty(2000))) {
      seen.push(e);
      if (seen.length % 400 === 0) await sleep(1);
    }
    expect(seen).toHaveLength(2005);
    expect(seen.some((e) => e.type === "EventsDropped")).toBe(false);
    await runner.close();
  });
});
