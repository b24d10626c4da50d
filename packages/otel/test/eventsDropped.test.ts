import { Graph, node } from "@graph/core";
import { type GraphEvent, Runner } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import { OtelProcessor } from "../src/index.js";
import { memoryTracing, renderTree } from "./helpers.js";

// An OtelProcessor fed from a run handle (`for await (const e of handle.events) otel.onEvent(e)`) gets the
// runtime's `EventsDropped` marker when the handle's bounded buffer overflowed before it was read: the trace must
// say it is incomplete, with the count, and what was kept must still be traced.

/** A 10-node chain n0 → … → n9; n0 waits for `release`. */
function chain(release: Promise<void> = Promise.resolve()): Graph {
  const nodes = Array.from({ length: 10 }, (_, i) =>
    node({ name: `n${i}`, inputs: [i === 0 ? "seed" : `v${i - 1}`], output: `v${i}` }, async (inputs) => {
      if (i === 0) await release;
      const [value] = Object.values(inputs) as number[];
      return value! + 1;
    }),
  );
  return new Graph(nodes, { name: "chain" });
}

describe("EventsDropped in traces", () => {
  it("read late: a span stands in for the dropped run start, with the count as an attribute and an events_dropped event; kept node spans nest under it", async () => {
    const { provider, exporter } = memoryTracing();
    const otel = new OtelProcessor({ tracerProvider: provider });
    const emitted: GraphEvent[] = [];
    const runner = new Runner({ eventProcessors: [{ onEvent: (e) => void emitted.push(e) }] });
    const handle = runner.start(chain(), { workflowId: "late", values: { seed: 0 }, eventBufferSize: 4 });
    expect((await handle.result).status).toBe("completed");
    for await (const e of handle.events) otel.onEvent(e);
    await runner.close();

    const dropped = emitted.length - 4;
    expect(dropped).toBeGreaterThan(20);
    const spans = exporter.getFinishedSpans();
    const root = spans.find((s) => s.name === "invoke_workflow")!;
    expect(root.attributes).toMatchObject({
      "graph.workflow_id": "late",
      "graph.events.incomplete": true,
      "graph.events.dropped": dropped,
      "graph.status": "completed",
    });
    expect(root.events.map((e) => [e.name, e.attributes])).toEqual([
      ["events_dropped", { "graph.events.dropped": dropped, "graph.workflow_id": "late" }],
    ]);
    // The kept events (the last node's start and end, the run's end) are traced under the stand-in.
    const kept = emitted.slice(-4).map((e) => e.type);
    expect(kept).toContain("NodeEnd");
    const tree = renderTree(spans);
    expect(tree).toHaveLength(2);
    expect(tree[0]).toBe("invoke_workflow {workflow_id=late status=completed} [events_dropped]");
    expect(tree[1]).toMatch(
      /^ {2}node n9 \{node\.type=function superstep=\d+ attempt=1 cached=false status=completed\}$/,
    );
    await provider.shutdown();
  });

  it("read while it runs: the run's own span gets the events_dropped event and the total", async () => {
    const { provider, exporter } = memoryTracing();
    const otel = new OtelProcessor({ tracerProvider: provider });
    const runner = new Runner();
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const handle = runner.start(chain(released), {
      workflowId: "slow-reader",
      values: { seed: 0 },
      eventBufferSize: 4,
    });
    const events = handle.events[Symbol.asyncIterator]();
    // Read up to n0's start while n0 waits, then let the run finish unread.
    for (;;) {
      const { value } = await events.next();
      otel.onEvent(value as GraphEvent);
      if ((value as GraphEvent).type === "NodeStart") break;
    }
    release();
    expect((await handle.result).status).toBe("completed");
    const rest: GraphEvent[] = [];
    for (let r = await events.next(); r.done !== true; r = await events.next()) rest.push(r.value);
    for (const e of rest) otel.onEvent(e);
    await runner.close();

    const marker = rest[0] as Extract<GraphEvent, { type: "EventsDropped" }>;
    expect(marker.type).toBe("EventsDropped");
    const root = exporter.getFinishedSpans().find((s) => s.name === "invoke_workflow chain")!;
    expect(root.attributes).toMatchObject({ "graph.workflow_id": "slow-reader", "graph.events.dropped": marker.count });
    expect(root.attributes).not.toHaveProperty("graph.events.incomplete");
    expect(root.events.filter((e) => e.name === "events_dropped").map((e) => e.attributes)).toEqual([
      { "graph.events.dropped": marker.count, "graph.workflow_id": "slow-reader" },
    ]);
    await provider.shutdown();
  });

  it("a marker no run end follows: shutdown ends the stand-in span", async () => {
    const { provider, exporter } = memoryTracing();
    const otel = new OtelProcessor({ tracerProvider: provider });
    const base = { runId: "r", spanId: "events-dropped", parentSpanId: undefined, timestamp: Date.now() };
    otel.onEvent({ ...base, type: "EventsDropped", workflowId: "cut/inner", count: 3 } as GraphEvent);
    otel.shutdown();
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => [s.name, s.attributes["graph.workflow_id"], s.attributes["graph.events.dropped"]])).toEqual(
      [["invoke_workflow", "cut", 3]],
    );
    await provider.shutdown();
  });
});
