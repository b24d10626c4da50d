import { Graph, node } from "@graph/core";
import { Runner } from "@graph/runtime";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OtelProcessor } from "../src/index.js";
import { memoryTracing } from "./helpers.js";

const { provider, exporter } = memoryTracing();
// A stand-in for an instrumented HTTP/LLM client: it starts its span in whatever context is active, as
// OpenTelemetry instrumentations do.
const clientTracer = provider.getTracer("fake-http-client");
async function instrumentedFetch(url: string): Promise<string> {
  await new Promise((r) => setTimeout(r, 5));
  const span = clientTracer.startSpan(`GET ${url}`);
  await new Promise((r) => setTimeout(r, 1));
  span.end();
  return `body of ${url}`;
}

describe("node spans as the active context", () => {
  const manager = new AsyncLocalStorageContextManager();
  beforeAll(() => {
    context.setGlobalContextManager(manager.enable());
  });
  afterAll(() => {
    context.disable();
  });

  it("an instrumented call inside a node (async, and between yields of a generator) nests under the node span", async () => {
    exporter.reset();
    const fetchPage = node({ output: "page" }, async function fetchPage({ url }: { url: string }) {
      await new Promise((r) => setTimeout(r, 2));
      return instrumentedFetch(url);
    });
    const stream = node({ output: "summary" }, async function* stream({ page }: { page: string }) {
      yield "a";
      await instrumentedFetch("/summarize");
      yield String(page.length);
    });
    const syncNode = node({ output: "active" }, function syncNode({ summary }: { summary: string }) {
      return `${summary}:${trace.getActiveSpan() !== undefined}`;
    });
    const runner = new Runner({ eventProcessors: [new OtelProcessor({ tracerProvider: provider })] });
    const result = await runner.run(new Graph([fetchPage, stream, syncNode], { name: "crawl" }), {
      values: { url: "/docs" },
    });
    expect(result.get("active")).toBe("a13:true");
    await runner.close();

    const spans = exporter.getFinishedSpans();
    const byName = (name: string) => spans.find((s) => s.name === name)!;
    const id = (name: string) => byName(name).spanContext().spanId;
    expect(byName("GET /docs").parentSpanContext?.spanId).toBe(id("node fetchPage"));
    expect(byName("GET /summarize").parentSpanContext?.spanId).toBe(id("node stream"));
    expect(byName("node fetchPage").parentSpanContext?.spanId).toBe(id("invoke_workflow crawl"));
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
  });

  it("a top-level run nests under the span active where it was started (an HTTP request handler)", async () => {
    exporter.reset();
    const tracer = provider.getTracer("server");
    const echo = node({ output: "out" }, async function echo({ x }: { x: number }) {
      return x;
    });
    const runner = new Runner({ eventProcessors: [new OtelProcessor({ tracerProvider: provider })] });
    await tracer.startActiveSpan("POST /run", async (request) => {
      await runner.run(new Graph([echo], { name: "echo" }), { values: { x: 1 } });
      request.end();
    });
    await runner.close();
    const spans = exporter.getFinishedSpans();
    const request = spans.find((s) => s.name === "POST /run")!;
    expect(spans.find((s) => s.name === "invoke_workflow echo")!.parentSpanContext?.spanId).toBe(
      request.spanContext().spanId,
    );
  });
});
