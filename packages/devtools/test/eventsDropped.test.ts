import { Graph, node } from "@graph/core";
import { type GraphEvent, Runner } from "@graph/runtime";
import { afterEach, describe, expect, it } from "vitest";
import { Devtools } from "../src/index.js";
import { call, memory, readEvents } from "./helpers.js";

// A devtools fed from a run handle (`for await (const e of handle.events) devtools.onEvent(e)`) gets the runtime's
// `EventsDropped` marker when the handle's bounded buffer overflowed before anyone read it. The live view and the
// API must say so, with the count, instead of showing a run that silently misses its beginning.

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

/** A 12-node chain: n0(seed) → v0 → n1 → … → v11. */
function chain(): Graph {
  const nodes = Array.from({ length: 12 }, (_, i) =>
    node({ name: `n${i}`, inputs: [i === 0 ? "seed" : `v${i - 1}`], output: `v${i}` }, (inputs) => {
      const [value] = Object.values(inputs) as number[];
      return value! + 1;
    }),
  );
  return new Graph(nodes, { name: "chain" });
}

async function setup() {
  const checkpointer = memory();
  const graph = chain();
  const devtools = new Devtools({ graphs: [graph], checkpointer });
  // What the runtime emitted, counted by an event processor (processors get every event).
  const emitted: GraphEvent[] = [];
  const runner = new Runner({ checkpointer, eventProcessors: [{ onEvent: (e) => void emitted.push(e) }] });
  devtools.connect(runner);
  const port = Number(new URL(await devtools.listen()).port);
  opened.push({ close: () => runner.close() }, devtools);
  return { devtools, runner, graph, port, emitted, auth: { "x-devtools-token": devtools.token } };
}

describe("EventsDropped in the live view and the API", () => {
  it("is a page event with the count; the workflow's API records carry droppedEvents; the kept events still place the run's nodes", async () => {
    const { devtools, runner, graph, port, emitted, auth } = await setup();
    const handle = runner.start(graph, { workflowId: "d1", values: { seed: 0 }, eventBufferSize: 6 });
    expect((await handle.result).status).toBe("completed");
    for await (const e of handle.events) devtools.onEvent(e);

    const ofRun = emitted.filter((e) => e.workflowId === "d1");
    const dropped = ofRun.length - 6;
    expect(dropped).toBeGreaterThan(40);
    const page = devtools.log.all();
    expect(page[0]).toMatchObject({ type: "EventsDropped", root: "d1", workflowId: "d1", count: dropped, dropped });
    expect(devtools.droppedEvents("d1")).toBe(dropped);
    // The run's start was dropped, yet what was kept is placed at the top level: the last node and the run's end.
    const kept = ofRun.slice(-6);
    const keptEnds = kept.filter((e) => e.type === "NodeEnd").map((e) => (e as { nodeName: string }).nodeName);
    expect(keptEnds.length).toBeGreaterThan(0);
    expect(page.filter((e) => e.type === "NodeEnd").map((e) => e.path)).toEqual(keptEnds);
    expect(page.at(-1)).toMatchObject({ type: "RunEnd", root: "d1", path: "", status: "completed" });

    const list = (await call(port, "/api/workflows", { headers: auth })).json() as Record<string, unknown>[];
    expect(list.find((w) => w["id"] === "d1")).toMatchObject({ status: "completed", droppedEvents: dropped });
    const detail = (await call(port, "/api/workflows/d1", { headers: auth })).json() as Record<string, unknown>;
    expect(detail).toMatchObject({ id: "d1", status: "completed", droppedEvents: dropped });
    const stream = await readEvents(port, devtools.token, page.length);
    expect(stream.events[0]).toMatchObject({ type: "EventsDropped", root: "d1", count: dropped });

    // A second drop on a resume adds up.
    devtools.onEvent({ ...kept.at(-1)!, type: "EventsDropped", count: 5, spanId: "events-dropped" } as GraphEvent);
    expect(devtools.droppedEvents("d1")).toBe(dropped + 5);
    expect(devtools.log.all().at(-1)).toMatchObject({ type: "EventsDropped", count: 5, dropped: dropped + 5 });
  });

  it("a run whose handle was read in time has no marker and no droppedEvents", async () => {
    const { devtools, runner, graph, port, auth } = await setup();
    const handle = runner.start(graph, { workflowId: "d2", values: { seed: 0 } });
    for await (const e of handle.events) devtools.onEvent(e);
    expect((await handle.result).status).toBe("completed");
    expect(devtools.log.all().some((e) => e.type === "EventsDropped")).toBe(false);
    expect(devtools.log.all()[0]).toMatchObject({ type: "RunStart", root: "d2", graph: "chain" });
    expect(devtools.droppedEvents("d2")).toBe(0);
    const list = (await call(port, "/api/workflows", { headers: auth })).json() as Record<string, unknown>[];
    expect(list.find((w) => w["id"] === "d2")).not.toHaveProperty("droppedEvents");
  });

  it("a marker from a nested run's events counts for its root workflow", async () => {
    const { devtools } = await setup();
    const base = { runId: "r", spanId: "s", parentSpanId: undefined, timestamp: 1 };
    devtools.onEvent({ ...base, type: "RunStart", workflowId: "top", graphName: "chain", depth: 0 } as GraphEvent);
    devtools.onEvent({ ...base, type: "EventsDropped", workflowId: "top/inner/3", count: 7 } as GraphEvent);
    expect(devtools.droppedEvents("top")).toBe(7);
    expect(devtools.log.all().at(-1)).toMatchObject({ type: "EventsDropped", root: "top", graph: "chain", count: 7 });
  });
});
