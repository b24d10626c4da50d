import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { asset } from "./assets.js";
import type { Answer, Devtools } from "./Devtools.js";
import { isDevtoolsError } from "./DevtoolsError.js";
import type { PageEvent } from "./EventLog.js";
import { errorMessage } from "./preview.js";

/**
 * The running server: its port and how to stop it (closing open event streams too).
 *
 * @example
 * ```ts
 * const server = await startServer(devtools, 0);
 * await server.close();
 * ```
 */
export interface DevtoolsServer {
  readonly port: number;
  close(): Promise<void>;
}

const KEEPALIVE_MS = 15_000;
const MAX_BODY = 64 * 1024;

class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * The page's server, on 127.0.0.1 only. Every request must name this server in `Host` (a DNS-rebinding page
 * can't); every API call must carry the per-launch token; writes must also come from this origin (or from no
 * browser at all: no `Origin`) with a JSON body, so another page in the same browser can't post answers (CSRF).
 */
export async function startServer(devtools: Devtools, port: number): Promise<DevtoolsServer> {
  const streams = new Set<ServerResponse>();
  let actualPort = 0;
  const server = createServer((req, res) => {
    handle(devtools, req, res, actualPort, streams).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : isDevtoolsError(error) ? 400 : 500;
      if (!res.headersSent) sendJson(res, status, { error: errorMessage(error) });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  actualPort = (server.address() as AddressInfo).port;
  return {
    port: actualPort,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of streams) s.end();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(
  devtools: Devtools,
  req: IncomingMessage,
  res: ServerResponse,
  port: number,
  streams: Set<ServerResponse>,
): Promise<void> {
  const allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (!allowedHosts.includes(req.headers.host ?? ""))
    throw new HttpError(403, `Host '${req.headers.host ?? ""}' is not this devtools server.`);
  const url = new URL(req.url ?? "/", `http://127.0.0.1:${port}`);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "no-referrer");

  if (!url.pathname.startsWith("/api/")) {
    if (req.method !== "GET") throw new HttpError(405, "Only GET is served here.");
    const file = await asset(url.pathname);
    if (file === undefined) throw new HttpError(404, `Nothing at ${url.pathname}.`);
    res.writeHead(200, {
      "Content-Type": file.type,
      "Cache-Control": "no-cache",
      // Only this server's own scripts; Mermaid draws with inline styles.
      "Content-Security-Policy":
        "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
    });
    res.end(file.body);
    return;
  }

  checkToken(devtools.token, req.headers["x-devtools-token"] ?? url.searchParams.get("token") ?? "");
  const route = `${req.method} ${url.pathname}`;
  if (route === "GET /api/graphs") return sendJson(res, 200, devtools.views);
  if (route === "GET /api/events") return streamEvents(devtools, req, res, url, streams);
  if (route === "GET /api/workflows") return sendJson(res, 200, await devtools.workflows());
  const m = /^\/api\/workflows\/([^/]+)(?:\/(answer|fork))?$/.exec(url.pathname);
  if (m === null) throw new HttpError(404, `No API at ${url.pathname}.`);
  const id = decodeURIComponent(m[1]!);
  const action = m[2];
  if (action === undefined && req.method === "GET") {
    const workflow = await devtools.workflow(id);
    if (workflow === undefined) throw new HttpError(404, `No stored workflow '${id}'.`);
    return sendJson(res, 200, workflow);
  }
  if (req.method !== "POST" || action === undefined) throw new HttpError(405, `${route} is not allowed.`);
  checkOrigin(req, allowedHosts);
  const body = await readJson(req);
  if (action === "answer") {
    const answer = body as Partial<Answer>;
    if (answer.action !== "approve" && answer.action !== "reject" && answer.action !== "text")
      throw new HttpError(400, 'The answer needs action "approve", "reject" or "text".');
    await devtools.answer(id, {
      action: answer.action,
      ...(typeof answer.text === "string" ? { text: answer.text } : {}),
    });
    return sendJson(res, 202, { workflowId: id });
  }
  const superstep = (body as { superstep?: unknown }).superstep;
  if (typeof superstep !== "number" || !Number.isInteger(superstep))
    throw new HttpError(400, "A fork needs { superstep: <integer> }.");
  return sendJson(res, 202, { workflowId: await devtools.fork(id, superstep) });
}

function checkToken(expected: string, given: string | string[]): void {
  const a = Buffer.from(expected);
  const b = Buffer.from(Array.isArray(given) ? (given[0] ?? "") : given);
  if (a.length !== b.length || !timingSafeEqual(a, b))
    throw new HttpError(401, "Missing or wrong devtools token: open the URL the process printed (it has ?token=…).");
}

function checkOrigin(req: IncomingMessage, allowedHosts: readonly string[]): void {
  const origin = req.headers.origin;
  if (origin !== undefined && !allowedHosts.some((h) => origin === `http://${h}`))
    throw new HttpError(403, `Writes from origin '${origin}' are not allowed.`);
  if (!(req.headers["content-type"] ?? "").startsWith("application/json"))
    throw new HttpError(415, "Writes must send Content-Type: application/json.");
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new HttpError(413, "Request body too large.");
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
  } catch {
    throw new HttpError(400, "The request body is not JSON.");
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" });
  res.end(JSON.stringify(body));
}

/**
 * Server-Sent Events. A reconnecting page sends `Last-Event-ID` and gets only what it missed; when that was already
 * dropped from the bounded log (or on a first connect) it gets a `reset` and everything kept.
 */
function streamEvents(
  devtools: Devtools,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  streams: Set<ServerResponse>,
): void {
  res.writeHead(200, {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-store",
    Connection: "keep-alive",
  });
  const write = (e: PageEvent) => res.write(`id: ${e.id}\ndata: ${JSON.stringify(e)}\n\n`);
  const header = req.headers["last-event-id"] ?? url.searchParams.get("lastEventId") ?? undefined;
  const lastId = header === undefined ? undefined : Number(header);
  const missed = lastId === undefined || !Number.isInteger(lastId) ? undefined : devtools.log.since(lastId);
  if (missed === undefined) {
    res.write(`event: reset\ndata: {}\n\n`);
    for (const e of devtools.log.all()) write(e);
  } else {
    for (const e of missed) write(e);
  }
  const unsubscribe = devtools.log.subscribe(write);
  const keepalive = setInterval(() => res.write(": keepalive\n\n"), KEEPALIVE_MS);
  streams.add(res);
  const done = () => {
    unsubscribe();
    clearInterval(keepalive);
    streams.delete(res);
  };
  req.on("close", done);
  res.on("close", done);
}
