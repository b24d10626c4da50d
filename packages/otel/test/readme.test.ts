import { Graph, node } from "@graph/core";
import { Runner } from "@graph/runtime";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { expect, it } from "vitest";
import { OtelProcessor } from "../src/index.js";

it("README: the first example", async () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

  const shout = node({ output: "loud" }, function shout({ text }: { text: string }) {
    return text.toUpperCase();
  });
  const runner = new Runner({ eventProcessors: [new OtelProcessor({ tracerProvider: provider })] });
  await runner.run(new Graph([shout], { name: "demo" }), { values: { text: "hi" } });
  await runner.close();

  expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(["node shout", "invoke_workflow demo"]);
});
