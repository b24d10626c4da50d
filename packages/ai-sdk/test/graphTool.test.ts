import { Graph, interrupt, node } from "@graph/core";
import { Runner } from "@graph/runtime";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { graphInputSchema, graphTool } from "../src/index.js";

const runner = new Runner();
afterAll(() => runner.close());

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

const lookup = node(
  { output: "order", inputs: { orderId: z.string().regex(/^A-\d+$/), verbose: z.boolean().default(false) } },
  function lookup({ orderId, verbose }) {
    return { id: orderId, status: "shipped", ...(verbose ? { carrier: "DHL" } : {}) };
  },
);
const summarize = node({ output: "summary" }, function summarize({ order }: { order: { id: string; status: string } }) {
  return `${order.id} is ${order.status}`;
});
const orders = new Graph([lookup, summarize], { name: "orders" });

describe("graphTool", () => {
  it("builds the input schema from the graph's inputs and their zod schemas", () => {
    const schema = graphInputSchema(orders);
    expect(schema.parse({ orderId: "A-1" })).toEqual({ orderId: "A-1", verbose: false });
    expect(schema.safeParse({ orderId: "B-1" }).success).toBe(false);
    expect(schema.safeParse({}).success).toBe(false);
    const json = z.toJSONSchema(schema) as { required?: string[]; properties: Record<string, { type?: string }> };
    expect(json.required).toEqual(["orderId"]);
    expect(json.properties.orderId?.type).toBe("string");
    expect(json.properties.verbose?.type).toBe("boolean");
    // A bound input is not the model's to give.
    expect(Object.keys(graphInputSchema(orders.bind({ verbose: true })).shape)).toEqual(["orderId"]);
  });

  it("runs the graph when the model calls the tool and returns the chosen output", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [
        {
          content: [{ type: "tool-call", toolCallId: "c1", toolName: "lookupOrder", input: '{"orderId":"A-7"}' }],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        },
        {
          content: [{ type: "text", text: "Order A-7 has shipped." }],
          finishReason: { unified: "stop", raw: undefined },
          usage,
          warnings: [],
        },
      ],
    });
    const lookupOrder = graphTool(orders, { runner, description: "Looks up an order", output: "summary" });
    const result = await generateText({
      model,
      tools: { lookupOrder },
      stopWhen: stepCountIs(3),
      prompt: "Where is A-7?",
    });
    expect(result.text).toBe("Order A-7 has shipped.");
    expect(result.steps[0]?.toolResults.map((r) => [r.toolName, r.input, r.output])).toEqual([
      // The SDK parsed the input with the schema: zod's default filled `verbose`.
      ["lookupOrder", { orderId: "A-7", verbose: false }, "A-7 is shipped"],
    ]);
    // The model saw the schema the graph declares.
    const tools = model.doGenerateCalls[0]?.tools ?? [];
    expect(tools.map((t) => [t.name, t.type === "function" ? t.description : ""])).toEqual([
      ["lookupOrder", "Looks up an order"],
    ]);
  });

  it("returns the leaf outputs by default, and how to resume when the graph pauses", async () => {
    const all = graphTool(orders, { runner, description: "d" });
    const exec = all.execute!;
    expect(await exec({ orderId: "A-2" } as never, { toolCallId: "t", messages: [] })).toEqual({
      summary: "A-2 is shipped",
    });

    const approve = interrupt({ name: "approve", input: "summary", response: "ok" });
    const paused = graphTool(new Graph([lookup, summarize, approve]), {
      runner,
      description: "d",
      workflowId: (_input, call) => `tool-${call.toolCallId}`,
    });
    expect(await paused.execute!({ orderId: "A-3" } as never, { toolCallId: "c9", messages: [] })).toEqual({
      status: "paused",
      workflowId: "tool-c9",
      interrupt: "approve",
      responseKey: "ok",
      value: "A-3 is shipped",
      howToResume: `Ask the user about "A-3 is shipped", then run workflow 'tool-c9' again with { "ok": <answer> }.`,
    });
  });
});
