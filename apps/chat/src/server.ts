/**
 * The chat's HTTP server (node:http): the API GraphChat answers, and the React page served by Vite (in middleware
 * mode, so `npm run chat` needs no build step).
 */
import { mkdirSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ChatRequestError, GraphChat, isChatRequestError } from "@graph/ai-sdk";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
import { Runner } from "@graph/runtime";
import { pipeUIMessageStreamToResponse, type UIMessage } from "ai";
import { type SupportGraph, supportGraph, type Turn } from "./graph.js";
import { chooseModel, type ModelStats } from "./model.js";

const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface ChatServerOptions {
  /** SQLite file of the workflows. Default `apps/chat/data/chat.db`. */
  readonly db?: string;
  readonly port?: number;
  /** Delay between the test model's tokens (ms). Default 60. */
  readonly tokenDelayMs?: number;
}

export interface ChatServer {
  readonly url: string;
  readonly modelName: string;
  /** The model calls made so far, each with its abort signal (the tests check a stop reaches the model). */
  readonly stats: ModelStats;
  readonly chat: GraphChat<SupportGraph>;
  close(): Promise<void>;
}

/** The conversation a turn runs on: the text of every message, in order. */
function conversationOf(messages: readonly UIMessage[]): Turn[] {
  return messages
    .map((m) => ({
      role: m.role === "user" ? ("user" as const) : ("assistant" as const),
      text: m.parts.map((p) => (p.type === "text" ? p.text : "")).join(""),
    }))
    .filter((t) => t.text !== "");
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new ChatRequestError("invalid_request", "The request body is not JSON.");
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

export async function startChatServer(options: ChatServerOptions = {}): Promise<ChatServer> {
  const db = options.db ?? path.join(appDir, "data", "chat.db");
  mkdirSync(path.dirname(db), { recursive: true });
  const checkpointer = new SqliteCheckpointer({ path: db });
  const runner = new Runner({ checkpointer });
  const stats: ModelStats = { calls: [] };
  const { model, name } = chooseModel(options.tokenDelayMs ?? 60, stats);
  const graph = supportGraph(model);
  const chat = new GraphChat({
    runner,
    graph,
    checkpointer,
    input: ({ messages }) => ({ conversation: conversationOf(messages) }),
    select: ["draft", "answer", "decision"],
    errorMessage: (error) => (error instanceof Error ? error.message : String(error)),
    // `npm run chat` listens on 127.0.0.1 for the one person running it.
    localSingleUser: true,
  });

  const { createServer: createVite, defaultClientConditions } = await import("vite");
  const react = (await import("@vitejs/plugin-react")).default;
  const vite = await createVite({
    root: path.join(appDir, "web"),
    configFile: false,
    logLevel: "warn",
    plugins: [react()],
    // The page imports @graph/react and @graph/ai-sdk from their TypeScript sources, like the tests do.
    resolve: { conditions: ["@graph/source", ...defaultClientConditions] },
    server: { middlewareMode: true, hmr: false },
    appType: "spa",
  });

  async function api(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    const match = /^\/api\/chat\/([^/]+)\/(stream|stop)$/.exec(pathname);
    if (pathname === "/api/chat" && req.method === "POST") {
      const stream = await chat.stream((await readJson(req)) as Parameters<typeof chat.stream>[0]);
      pipeUIMessageStreamToResponse({ response: res, stream });
    } else if (match?.[2] === "stream" && req.method === "GET") {
      const stream = await chat.reconnect(decodeURIComponent(match[1]!));
      if (stream === undefined) res.writeHead(204).end();
      else pipeUIMessageStreamToResponse({ response: res, stream });
    } else if (match?.[2] === "stop" && req.method === "POST") {
      sendJson(res, 200, {
        stopped: await chat.stop(decodeURIComponent(match[1]!), undefined, { reason: "stopped from the page" }),
      });
    } else sendJson(res, 404, { error: "NotFound", message: `No API at ${req.method} ${pathname}` });
  }

  const server: Server = createServer((req, res) => {
    const pathname = new URL(req.url ?? "/", "http://localhost").pathname;
    if (!pathname.startsWith("/api/")) {
      vite.middlewares(req, res);
      return;
    }
    api(req, res, pathname).catch((error: unknown) => {
      if (res.headersSent) return void res.end();
      if (isChatRequestError(error)) sendJson(res, error.status, error.toJSON());
      else sendJson(res, 500, { error: "InternalError", message: String((error as Error)?.message ?? error) });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    modelName: name,
    stats,
    chat,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await vite.close();
      await runner.close();
    },
  };
}
