import { Graph, node } from "@graph/core";
import { MemoryCache, Runner } from "@graph/runtime";
import { SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { OtelProcessor } from "../src/index.js";
import { errorType, payload } from "../src/payload.js";
import { memoryTracing } from "./helpers.js";

describe("OtelProcessor options and failures", () => {
  it("records payloads only when asked, truncated, and adds extra attributes to every span", async () => {
    const { provider, exporter } = memoryTracing();
    const shout = node({ output: "loud" }, function shout({ text }: { text: string }) {
      return text.toUpperCase();
    });
    const runner = new Runner({
      eventProcessors: [
        new OtelProcessor({
          tracerProvider: provider,
          payloads: { maxLength: 12 },
          attributes: { "app.tenant": "t1" },
        }),
      ],
    });
    await runner.run(new Graph([shout], { name: "g" }), { values: { text: "a long enough text" } });
    await runner.close();
    const spans = exporter.getFinishedSpans();
    const n = spans.find((s) => s.name === "node shout")!;
    expect(n.attributes["graph.node.inputs"]).toBe('{"text":"a …');
    expect(n.attributes["graph.node.outputs"]).toBe('{"loud":"A …');
    for (const s of spans) expect(s.attributes["app.tenant"]).toBe("t1");
  });

  it("marks a failed node and run with error.type and an ERROR status", async () => {
    const { provider, exporter } = memoryTracing();
    const boom = node({ output: "x" }, async function boom() {
      throw new RangeError("out of range");
    });
    const runner = new Runner({ eventProcessors: [new OtelProcessor({ tracerProvider: provider })] });
    await expect(runner.run(new Graph([boom], { name: "g" }))).rejects.toMatchObject({ _tag: "NodeExecutionError" });
    await runner.close();
    const spans = exporter.getFinishedSpans();
    const n = spans.find((s) => s.name === "node boom")!;
    expect(n.attributes).toMatchObject({ "error.type": "RangeError", "graph.status": "failed", "graph.attempt": 1 });
    expect(n.status).toEqual({ code: SpanStatusCode.ERROR, message: "out of range" });
    expect(n.events.map((e) => e.name)).toEqual(["exception"]);
    const run = spans.find((s) => s.name === "invoke_workflow g")!;
    expect(run.attributes).toMatchObject({ "error.type": "NodeExecutionError", "graph.status": "failed" });
    expect(run.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("records a stop request as a span event on the run and the cut-off node as stopped", async () => {
    const { provider, exporter } = memoryTracing();
    const slow = node({ output: "x", inputs: [] }, async function slow(_: object, ctx) {
      await new Promise((r) => setTimeout(r, 2000));
      return ctx.signal.aborted;
    });
    const runner = new Runner({ eventProcessors: [new OtelProcessor({ tracerProvider: provider })] });
    const handle = runner.start(new Graph([slow], { name: "g" }), { workflowId: "stoppable" });
    setTimeout(() => handle.stop({ reason: "user" }), 20);
    expect((await handle.result).status).toBe("stopped");
    await runner.close();
    const spans = exporter.getFinishedSpans();
    const run = spans.find((s) => s.name === "invoke_workflow g")!;
    expect(run.events.map((e) => [e.name, e.attributes])).toEqual([
      ["stop_requested", { "graph.stop.info": '{"reason":"user"}' }],
    ]);
    expect(spans.find((s) => s.name === "node slow")!.attributes["graph.status"]).toBe("stopped");
  });

  it("a cache hit sets graph.cached and adds a cache_hit event", async () => {
    const { provider, exporter } = memoryTracing();
    let calls = 0;
    const embed = node({ output: "vector", cache: true }, async function embed({ text }: { text: string }) {
      calls++;
      return [text.length];
    });
    const graph = new Graph([embed], { name: "g" });
    const runner = new Runner({
      cache: new MemoryCache(),
      eventProcessors: [new OtelProcessor({ tracerProvider: provider })],
    });
    await runner.run(graph, { values: { text: "abc" } });
    await runner.run(graph, { values: { text: "abc" } });
    await runner.close();
    expect(calls).toBe(1);
    const spans = exporter.getFinishedSpans().filter((s) => s.name === "node embed");
    expect(spans.map((s) => [s.attributes["graph.cached"], s.events.map((e) => e.name)])).toEqual([
      [false, []],
      [true, ["cache_hit"]],
    ]);
  });

  it("payload() and errorType() helpers", () => {
    expect(payload({ a: 1 }, 100)).toBe('{"a":1}');
    expect(payload("abcdef", 4)).toBe('"ab…');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(payload(cyclic, 100)).toBe("[object Object]");
    expect(errorType({ _tag: "MissingInputError" })).toBe("MissingInputError");
    expect(errorType(new TypeError("x"))).toBe("TypeError");
    expect(errorType("str")).toBe("unknown");
  });
});
