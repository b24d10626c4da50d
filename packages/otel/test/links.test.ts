import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, interrupt, node } from "@graph/core";
import { Runner } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import { OtelProcessor, type TraceLinkStore } from "../src/index.js";
import { memoryTracing } from "./helpers.js";

/** prepare (nested) → ⏸ approval → publish. */
function review() {
  const shout = node({ output: "loud" }, function shout({ text }: { text: string }) {
    return text.toUpperCase();
  });
  const prepare = new Graph([shout], { name: "prepare" }).asNode();
  const approval = interrupt({ name: "approval", input: "loud", response: "ok" });
  const publish = node({ output: "published" }, function publish({ loud, ok }: { loud: string; ok: boolean }) {
    return ok ? loud : null;
  });
  return new Graph([prepare, approval, publish], { name: "review" });
}

const roots = (spans: ReturnType<ReturnType<typeof memoryTracing>["exporter"]["getFinishedSpans"]>) =>
  spans.filter((s) => s.name === "invoke_workflow review");

describe("span links between the runs of one workflow", () => {
  it("a resumed run's span links to the paused run's span; nested runs and new workflows have no links", async () => {
    const { provider, exporter } = memoryTracing();
    const runner = new Runner({
      checkpointer: new MemoryCheckpointer({ policy: { durability: "sync" } }),
      eventProcessors: [new OtelProcessor({ tracerProvider: provider })],
    });
    expect((await runner.run(review(), { workflowId: "w1", values: { text: "hi" } })).status).toBe("paused");
    expect((await runner.run(review(), { workflowId: "w1", values: { ok: true } })).status).toBe("completed");
    await runner.run(review(), { workflowId: "w2", values: { text: "other" } });
    await runner.close();

    const [paused, resumed, other] = roots(exporter.getFinishedSpans());
    expect(paused!.links).toEqual([]);
    expect(other!.links).toEqual([]);
    expect(resumed!.spanContext().traceId).not.toBe(paused!.spanContext().traceId); // two traces…
    expect(resumed!.links).toEqual([
      {
        context: expect.objectContaining({
          traceId: paused!.spanContext().traceId,
          spanId: paused!.spanContext().spanId,
        }),
        attributes: { "graph.link": "previous_run", "graph.workflow_id": "w1" },
      },
    ]); // …one story
    for (const s of exporter.getFinishedSpans().filter((s) => s.name !== "invoke_workflow review"))
      expect(s.links).toEqual([]);
  });

  it("links across processes through a shared store (async), the next turn to the previous one", async () => {
    const shared = new Map<string, string>();
    const store: TraceLinkStore = {
      get: async (id) => shared.get(id),
      set: async (id, traceparent) => void shared.set(id, traceparent),
    };
    const checkpointer = new MemoryCheckpointer({ policy: { durability: "sync" } });
    const a = memoryTracing();
    const b = memoryTracing();
    // Two runners with their own processors: what two processes sharing a database and a link store do.
    const first = new Runner({
      checkpointer,
      eventProcessors: [new OtelProcessor({ tracerProvider: a.provider, traceLinks: store })],
    });
    const second = new Runner({
      checkpointer,
      eventProcessors: [new OtelProcessor({ tracerProvider: b.provider, traceLinks: store })],
    });
    await first.run(review(), { workflowId: "x", values: { text: "hi" } });
    await second.run(review(), { workflowId: "x", values: { ok: true } });
    await first.close();
    await second.close();
    const [paused] = roots(a.exporter.getFinishedSpans());
    const [resumed] = roots(b.exporter.getFinishedSpans());
    expect(resumed!.links.map((l) => l.context.spanId)).toEqual([paused!.spanContext().spanId]);
    expect(shared.get("x")).toBe(
      `00-${resumed!.spanContext().traceId}-${resumed!.spanContext().spanId}-0${resumed!.spanContext().traceFlags}`,
    );
  });

  it("traceLinks: false adds none; a failing store is a warning on the span, never a failed run", async () => {
    const off = memoryTracing();
    const broken = memoryTracing();
    const failing: TraceLinkStore = {
      get: () => {
        throw new Error("store down");
      },
      set: () => {},
    };
    const checkpointer = new MemoryCheckpointer({ policy: { durability: "sync" } });
    const runner = new Runner({
      checkpointer,
      eventProcessors: [
        new OtelProcessor({ tracerProvider: off.provider, traceLinks: false }),
        new OtelProcessor({ tracerProvider: broken.provider, traceLinks: failing }),
      ],
    });
    await runner.run(review(), { workflowId: "y", values: { text: "hi" } });
    expect((await runner.run(review(), { workflowId: "y", values: { ok: true } })).status).toBe("completed");
    await runner.close();
    for (const s of off.exporter.getFinishedSpans()) expect(s.links).toEqual([]);
    const warnings = roots(broken.exporter.getFinishedSpans()).map((s) =>
      s.events.filter((e) => e.name === "warning").map((e) => e.attributes?.["graph.warning"]),
    );
    expect(warnings).toEqual([["trace link store: store down"], ["trace link store: store down"]]);
  });
});
