// @graph/ai-sdk/mcp — graphs served as MCP tools (stdio and streamable HTTP), interrupts as elicitations.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Graph } from "@graph/core";
import { isUnexpectedAnswerError, type Runner, type RunResult } from "@graph/runtime";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { CallToolResult, RequestInfo } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { isChatRequestError } from "./errors.js";
import { graphInputSchema } from "./graphTool.js";
import { answering, checkAnswer, elicitationSchema, type PendingPause } from "./internal/answers.js";
import { checkAccessOptions, LOCAL_SCOPE, scopeOf } from "./internal/chatIds.js";

/**
 * One graph served as an MCP tool.
 *
 * @example
 * ```ts
 * const entry: McpGraphTool = { graph: orders, description: "Looks up an order", output: "order" };
 * ```
 */
export interface McpGraphTool {
  readonly graph: Graph;
  readonly description: string;
  /** The value(s) the tool returns (one name: that value; a list: an object). Default: the graph's leaf outputs. */
  readonly output?: string | readonly string[];
  /** Schemas of answers to its interrupts, by `responseKey` (default: the zod schema of the nodes that read it). */
  readonly answerSchemas?: Readonly<Record<string, z.ZodType>>;
}

/**
 * Options of {@link createMcpServer}.
 *
 * @example
 * ```ts
 * const options: McpServerOptions = {
 *   runner,
 *   tools: { lookup_order: { graph: orders, description: "Looks up an order" } },
 *   authorize: ({ authInfo }) => authInfo?.clientId ?? false,
 * };
 * ```
 */
export interface McpServerOptions {
  /**
   * The runner the tools run on. Graphs with interrupts need it to have a checkpointer: a paused call is resumed
   * (by elicitation or `resume_workflow`) from its stored workflow.
   */
  readonly runner: Runner;
  readonly tools: Readonly<Record<string, McpGraphTool>>;
  readonly name?: string;
  readonly version?: string;
  /**
   * Who the caller is (the HTTP request's headers and the transport's auth info): return their scope (a user id: 1 to
   * 128 letters, digits, `.`, `_`, `:` or `-`), or `false` to refuse. A tool's workflow is
   * `<workflowPrefix>/<scope>/<tool>-<uuid>`, and `resume_workflow` answers only workflows of the caller's scope.
   * Required unless {@link localSingleUser} is set.
   */
  readonly authorize?: (caller: {
    readonly request: RequestInfo | undefined;
    readonly authInfo: AuthInfo | undefined;
  }) => string | false | null | undefined | Promise<string | false | null | undefined>;
  /** The server has one user on their own machine (stdio for a desktop client): every caller's scope is `"local"`. */
  readonly localSingleUser?: true;
  /** The first segment of every workflow id. Default `"mcp"`. */
  readonly workflowPrefix?: string;
}

function text(value: unknown, isError = false): CallToolResult {
  return {
    content: [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value) }],
    ...(isError ? { isError: true } : {}),
  };
}

function outputOf(result: RunResult, graph: Graph, output: string | readonly string[] | undefined): unknown {
  const values = result.values as Record<string, unknown>;
  const names = output ?? graph.leafOutputs;
  if (typeof names === "string") return values[names];
  return Object.fromEntries(names.filter((n) => n in values).map((n) => [n, values[n]]));
}

/**
 * An MCP server whose tools are graphs: each tool's input schema comes from its graph's inputs, a call runs the
 * graph and returns its output. When the run pauses at an interrupt, a client that supports elicitation is asked
 * for the answer (a form built from the answer's schema) and the run resumes with it; otherwise — or when the human
 * declines — the result says how to resume: the `resume_workflow` tool with the workflow id and the answer.
 *
 * @example
 * ```ts
 * import { Graph, node } from "@graph/core";
 * import { Runner } from "@graph/runtime";
 * import { z } from "zod";
 *
 * const lookup = node({ output: "order", inputs: { orderId: z.string() } }, ({ orderId }) => ({ id: orderId }));
 * const server = createMcpServer({
 *   runner: new Runner(),
 *   tools: { lookup_order: { graph: new Graph([lookup]), description: "Looks up an order", output: "order" } },
 * });
 * await serveStdio(server);
 * ```
 */
export function createMcpServer(options: McpServerOptions): McpServer {
  const server = new McpServer(
    { name: options.name ?? "graph", version: options.version ?? "0.1.0" },
    { capabilities: { tools: {} } },
  );
  const { runner } = options;
  const prefix = checkAccessOptions("createMcpServer", options, "mcp");
  const authorize = options.authorize;
  /** The caller's scope; a refusal is the tool's error result. */
  const scopeOfCaller = (extra: { requestInfo?: RequestInfo; authInfo?: AuthInfo }) =>
    authorize === undefined
      ? Promise.resolve(LOCAL_SCOPE)
      : scopeOf(
          "createMcpServer",
          ({ request }) => authorize(request),
          { request: extra.requestInfo, authInfo: extra.authInfo },
          "-",
          "this server's tools",
        );

  /** Runs (or resumes) a tool's graph; a pause is answered by elicitation while the client can, else reported. */
  async function run(
    tool: McpGraphTool,
    values: Record<string, unknown>,
    workflowId: string,
    signal: AbortSignal,
    answered?: PendingPause,
  ) {
    // An answer names the pause it was checked against: the runner takes it only while that pause is pending.
    const first = await runner
      .run(tool.graph, {
        values,
        workflowId,
        signal,
        errorHandling: "continue",
        ...(answered === undefined ? {} : answering(answered)),
      })
      .catch((error: unknown) => {
        if (isUnexpectedAnswerError(error)) return error;
        throw error;
      });
    if (isUnexpectedAnswerError(first)) return text(first.message, true);
    let result = first;
    while (result.status === "paused" && result.pause?.reason === "human_input") {
      const pause = result.pause;
      if (server.server.getClientCapabilities()?.elicitation === undefined) break;
      const form = elicitationSchema(tool.graph, pause, tool.answerSchemas);
      const reply = await server.server.elicitInput(
        {
          message: `'${pause.nodeName}' needs your answer (${pause.responseKey}): ${JSON.stringify(pause.value)}`,
          requestedSchema: form.requestedSchema as never,
        },
        { signal },
      );
      if (reply.action !== "accept" || reply.content === undefined) break;
      let answer: unknown;
      try {
        answer = checkAnswer(
          tool.graph,
          workflowId,
          pause,
          { responseKey: pause.responseKey, value: form.answer(reply.content) },
          tool.answerSchemas,
        );
      } catch (error) {
        if (isChatRequestError(error)) return text(error.message, true);
        throw error;
      }
      const next = await runner
        .run(tool.graph, {
          values: { [pause.responseKey]: answer },
          workflowId,
          signal,
          errorHandling: "continue",
          ...answering(pause),
        })
        .catch((error: unknown) => {
          if (isUnexpectedAnswerError(error)) return error;
          throw error;
        });
      if (isUnexpectedAnswerError(next)) return text(next.message, true);
      result = next;
    }
    return report(tool, result, workflowId);
  }

  /** Pauses reported to the client, by workflow: what `resume_workflow` checks an answer against. */
  const pauses = new Map<string, PendingPause>();

  function report(tool: McpGraphTool, result: RunResult, workflowId: string): CallToolResult {
    if (result.status === "paused" && result.pause !== undefined) pauses.set(workflowId, result.pause);
    if (result.status === "completed") return text(outputOf(result, tool.graph, tool.output));
    if (result.status === "paused" && result.pause !== undefined)
      return text({
        status: "paused",
        workflowId,
        interrupt: result.pause.nodeName,
        responseKey: result.pause.responseKey,
        value: result.pause.value,
        howToResume: `Ask the user about the value above, then call the tool 'resume_workflow' with { "workflowId": "${workflowId}", "answer": <the answer> }.`,
      });
    if (result.status === "stopped") return text({ status: "stopped", workflowId });
    const error = result.error as { _tag?: string; message?: string } | undefined;
    return text(
      `The workflow '${workflowId}' failed: ${error?._tag ?? "Error"}: ${error?.message ?? String(error)}`,
      true,
    );
  }

  const byWorkflow = new Map<string, McpGraphTool>();
  for (const [name, tool] of Object.entries(options.tools)) {
    server.registerTool(
      name,
      { description: tool.description, inputSchema: graphInputSchema(tool.graph) },
      async (input, extra) => {
        let scope: string;
        try {
          scope = await scopeOfCaller(extra);
        } catch (error) {
          if (isChatRequestError(error)) return text(error.message, true);
          throw error;
        }
        const workflowId = `${prefix}/${scope}/${name}-${randomUUID()}`;
        byWorkflow.set(workflowId, tool);
        return run(tool, input as Record<string, unknown>, workflowId, extra.signal);
      },
    );
  }
  if (Object.values(options.tools).some((t) => t.graph.hasInterrupts)) {
    server.registerTool(
      "resume_workflow",
      {
        description: "Answers the pause of a workflow a tool of this server started, and continues it.",
        inputSchema: z.object({ workflowId: z.string(), answer: z.unknown() }),
      },
      async ({ workflowId, answer }, extra) => {
        try {
          const scope = await scopeOfCaller(extra);
          // Only ids this server derives for the caller's scope: never another user's, never a workflow of other code.
          const tool = workflowId.startsWith(`${prefix}/${scope}/`) ? byWorkflow.get(workflowId) : undefined;
          if (tool === undefined)
            return text(
              `No workflow '${workflowId}' of yours was started by this server; nothing was stored.\n  How to fix: pass the workflowId a tool of this server returned to you.`,
              true,
            );
          const pause = pauses.get(workflowId);
          if (pause === undefined) return text(`Workflow '${workflowId}' is not waiting for an answer.`, true);
          const value = checkAnswer(
            tool.graph,
            workflowId,
            pause,
            { responseKey: pause.responseKey, value: answer },
            tool.answerSchemas,
          );
          pauses.delete(workflowId);
          return await run(tool, { [pause.responseKey]: value }, workflowId, extra.signal, pause);
        } catch (error) {
          if (isChatRequestError(error)) return text(error.message, true);
          throw error;
        }
      },
    );
  }
  return server;
}

/**
 * Serves an MCP server on this process's stdin/stdout (how desktop clients start local servers).
 *
 * @example
 * ```ts
 * await serveStdio(createMcpServer({ runner, tools: { lookup_order: { graph: orders, description: "Looks up an order" } } }));
 * ```
 */
export async function serveStdio(server: McpServer): Promise<void> {
  await server.connect(new StdioServerTransport());
}

/**
 * A `node:http` handler serving MCP over streamable HTTP, with sessions (so a pause can be answered by elicitation
 * in the middle of a tool call). `createServer` makes the MCP server of a new session.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * const handler = mcpHttpHandler(() => createMcpServer({ runner, tools: { lookup_order: { graph: orders, description: "Looks up an order" } } }));
 * createServer((req, res) => void handler(req, res)).listen(3001);
 * ```
 */
export function mcpHttpHandler(
  createServer: () => McpServer,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  return async (req, res) => {
    const id = req.headers["mcp-session-id"];
    const existing = typeof id === "string" ? sessions.get(id) : undefined;
    if (existing !== undefined) return existing.handleRequest(req, res);
    if (typeof id === "string") {
      res.writeHead(404, { "content-type": "application/json" }).end(
        JSON.stringify({
          jsonrpc: "2.0",
          error: { code: -32001, message: `Unknown MCP session '${id}': start a new one.` },
          id: null,
        }),
      );
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await createServer().connect(transport);
    await transport.handleRequest(req, res);
  };
}
