import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { MemoryCheckpointer } from "@graph/checkpoint";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpServer, mcpHttpHandler } from "../src/mcp.js";
import { mcpOptions } from "./fixtures/graphs.js";

let http: Server;
let url: URL;
const clients: Client[] = [];
const checkpointer = new MemoryCheckpointer();
const options = mcpOptions(checkpointer);

beforeAll(async () => {
  const handler = mcpHttpHandler(() => createMcpServer(options));
  http = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
});
afterAll(async () => {
  for (const client of clients) await client.close();
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
});

const textOf = (result: unknown) => ((result as { content: { text: string }[] }).content[0]?.text ?? "") as string;

async function connect(elicitation: boolean): Promise<{ client: Client; asked: unknown[] }> {
  const client = new Client(
    { name: "test", version: "1.0.0" },
    { capabilities: elicitation ? { elicitation: {} } : {} },
  );
  const asked: unknown[] = [];
  if (elicitation)
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: "accept", content: { approved: true, note: "goodwill" } };
    });
  await client.connect(new StreamableHTTPClientTransport(url));
  clients.push(client);
  return { client, asked };
}

describe("@graph/ai-sdk/mcp", () => {
  it("lists the graphs as tools with input schemas from their inputs, and runs them (streamable HTTP)", async () => {
    const { client } = await connect(false);
    const { tools } = await client.listTools();
    expect(tools.map((t) => [t.name, t.description])).toEqual([
      ["lookup_order", "Looks up an order"],
      ["refund", "Refunds shipping"],
      ["resume_workflow", "Answers the pause of a workflow a tool of this server started, and continues it."],
    ]);
    expect(tools[0]?.inputSchema).toMatchObject({
      type: "object",
      properties: { orderId: { type: "string" } },
      required: ["orderId"],
    });
    const result = await client.callTool({ name: "lookup_order", arguments: { orderId: "A-1" } });
    expect(JSON.parse(textOf(result))).toEqual({ id: "A-1", status: "shipped" });
  });

  it("asks for an interrupt's answer by elicitation (a form from its zod schema) and finishes the run", async () => {
    const { client, asked } = await connect(true);
    const result = await client.callTool({ name: "refund", arguments: { customer: "Ada" } });
    expect(textOf(result)).toBe("SENT Refund 4.90 EUR to Ada? (goodwill)");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      message: `'approval' needs your answer (decision): "Refund 4.90 EUR to Ada?"`,
      requestedSchema: {
        type: "object",
        properties: { approved: { type: "boolean" }, note: { type: "string" } },
        required: ["approved"],
      },
    });
  });

  it("without elicitation, says how to resume; resume_workflow checks the answer against the schema", async () => {
    const { client } = await connect(false);
    const paused = JSON.parse(textOf(await client.callTool({ name: "refund", arguments: { customer: "Bo" } })));
    expect(paused).toMatchObject({
      status: "paused",
      interrupt: "approval",
      responseKey: "decision",
      value: "Refund 4.90 EUR to Bo?",
    });
    expect(paused.howToResume).toBe(
      `Ask the user about the value above, then call the tool 'resume_workflow' with { "workflowId": "${paused.workflowId}", "answer": <the answer> }.`,
    );
    const bad = await client.callTool({
      name: "resume_workflow",
      arguments: { workflowId: paused.workflowId, answer: { approved: "y" } },
    });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain(
      "does not match its schema: approved: Invalid input: expected boolean, received string",
    );
    const done = await client.callTool({
      name: "resume_workflow",
      arguments: { workflowId: paused.workflowId, answer: { approved: false } },
    });
    expect(textOf(done)).toBe("NOT SENT");
    const again = await client.callTool({
      name: "resume_workflow",
      arguments: { workflowId: paused.workflowId, answer: { approved: true } },
    });
    expect(textOf(again)).toBe(`Workflow '${paused.workflowId}' is not waiting for an answer.`);
  });

  it("resume_workflow for a pause answered elsewhere meanwhile: refused with the reason, never a new turn", async () => {
    const { client } = await connect(false);
    const paused = JSON.parse(textOf(await client.callTool({ name: "refund", arguments: { customer: "Al" } })));
    const graph = options.tools.refund!.graph;
    // Another client (or process) answered it first: the workflow completed.
    const other = await options.runner.run(graph, {
      workflowId: paused.workflowId,
      values: { decision: { approved: true } },
    });
    expect(other.status).toBe("completed");
    const before = {
      record: await checkpointer.getWorkflow(paused.workflowId),
      steps: await checkpointer.getSteps(paused.workflowId, { includeInputs: true }),
    };
    const late = await client.callTool({
      name: "resume_workflow",
      arguments: { workflowId: paused.workflowId, answer: { approved: false } },
    });
    expect(late.isError).toBe(true);
    expect(textOf(late)).toContain(
      `Workflow '${paused.workflowId}' got an answer to the pause at 'approval' (visit 3), but that pause is no longer pending: it is completed.`,
    );
    expect({
      record: await checkpointer.getWorkflow(paused.workflowId),
      steps: await checkpointer.getSteps(paused.workflowId, { includeInputs: true }),
    }).toEqual(before);
  });
});
