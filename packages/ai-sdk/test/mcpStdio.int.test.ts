// Spawns a child process: an MCP server on stdio, driven by the SDK's stdio client.
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, describe, expect, it } from "vitest";

const textOf = (result: unknown) => ((result as { content: { text: string }[] }).content[0]?.text ?? "") as string;
const clients: Client[] = [];
afterAll(async () => {
  for (const client of clients) await client.close();
});

describe("@graph/ai-sdk/mcp on stdio", () => {
  it("serves on stdio (a child process, the SDK's stdio client)", async () => {
    const fixture = fileURLToPath(new URL("./fixtures/mcpStdio.ts", import.meta.url));
    const client = new Client({ name: "stdio-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ["--conditions=@graph/source", "--import", "tsx", fixture],
      }),
    );
    clients.push(client);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["lookup_order", "refund", "resume_workflow"]);
    expect(JSON.parse(textOf(await client.callTool({ name: "lookup_order", arguments: { orderId: "B-2" } })))).toEqual({
      id: "B-2",
      status: "shipped",
    });
  }, 120_000);
});
