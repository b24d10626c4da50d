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
const options = mcpOptions({}, checkpointer);

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

describe("@graph/ai-sdk/mcp with authorize", () => {
  it("resume_workflow answers only the caller's own workflows; a caller authorize refuses gets an error", async () => {
    const handler = mcpHttpHandler(() =>
      createMcpServer(mcpOptions({ authorize: ({ request }) => (request?.headers["x-user"] as string) ?? false })),
    );
    const server = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const endpoint = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    // One session whose caller changes between requests: the scope is checked on every call, not per session.
    let who: string | undefined = "alice";
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(endpoint, {
        fetch: (input, init) => {
          const headers = new Headers(init?.headers);
          if (who !== undefined) headers.set("x-user", who);
          return fetch(input, { ...init, headers });
        },
      }),
    );
    try {
      const paused = JSON.parse(textOf(await client.callTool({ name: "refund", arguments: { customer: "Al" } })));
      expect(paused.workflowId).toMatch(/^mcp\/alice\/refund-[0-9a-f-]{36}$/);

      who = "bob";
      for (const workflowId of [paused.workflowId, "orders-1", "chat/alice/c1", `mcp/bob/${paused.workflowId}`]) {
        const refused = await client.callTool({
          name: "resume_workflow",
          arguments: { workflowId, answer: { approved: true } },
        });
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toContain(`No workflow '${workflowId}' of yours was started by this server`);
      }
      who = undefined;
      const anonymous = await client.callTool({ name: "lookup_order", arguments: { orderId: "A-1" } });
      expect(anonymous.isError).toBe(true);
      expect(textOf(anonymous)).toBe("You may not use this server's tools; nothing was read or written.");

      who = "alice";
      const done = await client.callTool({
        name: "resume_workflow",
        arguments: { workflowId: paused.workflowId, answer: { approved: true } },
      });
      expect(textOf(done)).toBe("SENT Refund 4.90 EUR to Al?");
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("refuses to build a server without authorize unless localSingleUser is set", () => {
    const { localSingleUser: _, ...open } = mcpOptions();
    expect(() => createMcpServer(open)).toThrow(
      /no 'authorize': any client could read, answer or stop any other user's chats/,
    );
  });
});
