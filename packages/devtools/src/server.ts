import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { asset } from "./assets.js";
import type { Answer, Devtools } from "./Devtools.js";
import { isDevtoolsError } from "./DevtoolsError.js";
import {
  checkOrigin,
  checkToken,
  decodePart,
  HttpError,
  readJson,
  recordField,
  sendJson,
  streamEvents,
} from "./internal/http.js";
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

const STATUS_OF_KIND = { invalid: 400, "not-found": 404, conflict: 409 } as const;

function statusOf(error: unknown): number {
  if (error instanceof HttpError) return error.status;
  if (isDevtoolsError(error)) return STATUS_OF_KIND[error.kind];
  return 500;
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
      const issues = isDevtoolsError(error) && error.issues.length > 0 ? { issues: error.issues } : {};
      if (!res.headersSent) sendJson(res, statusOf(error), { error: errorMessage(error), ...issues });
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

const WORKFLOW_ROUTE = /^\/api\/workflows\/([^/]+)(?:\/(answer|fork|stop|cancel|rerun|resume|items|state))?$/;

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
  let url: URL;
  try {
    url = new URL(req.url ?? "/", `http://127.0.0.1:${port}`);
  } catch {
    throw new HttpError(400, "Malformed URL.");
  }
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
  if (route === "POST /api/runs") {
    checkOrigin(req, allowedHosts);
    const body = await readJson(req);
    if (typeof body.graph !== "string") throw new HttpError(400, "A run needs { graph: <graph name>, values }.");
    if (body.workflowId !== undefined && (typeof body.workflowId !== "string" || body.workflowId === ""))
      throw new HttpError(400, "'workflowId' must be a non-empty string (or left out for a generated one).");
    const id = await devtools.start(body.graph, recordField(body, "values"), body.workflowId as string | undefined);
    return sendJson(res, 202, { workflowId: id });
  }
  const m = WORKFLOW_ROUTE.exec(url.pathname);
  if (m === null) throw new HttpError(404, `No API at ${url.pathname}.`);
  const id = decodePart(m[1]!);
  const action = m[2];
  if (req.method === "GET") return sendJson(res, 200, await read(devtools, id, action, url));
  if (req.method !== "POST" || action === undefined || action === "items" || action === "state")
    throw new HttpError(405, `${route} is not allowed.`);
  checkOrigin(req, allowedHosts);
  const body = await readJson(req);
  switch (action) {
    case "answer":
      await devtools.answer(id, toAnswer(body));
      return sendJson(res, 202, { workflowId: id });
    case "fork": {
      const superstep = body.superstep;
      if (typeof superstep !== "number" || !Number.isInteger(superstep))
        throw new HttpError(400, "A fork needs { superstep: <integer> } (and optionally values: { name: value }).");
      return sendJson(res, 202, { workflowId: await devtools.fork(id, superstep, recordField(body, "values")) });
    }
    case "stop":
    case "cancel":
      await devtools.stop(id);
      return sendJson(res, 202, { workflowId: id });
    case "rerun":
      return sendJson(res, 202, { workflowId: await devtools.rerun(id) });
    default:
      await devtools.resume(id);
      return sendJson(res, 202, { workflowId: id });
  }
}

async function read(devtools: Devtools, id: string, action: string | undefined, url: URL): Promise<unknown> {
  if (action === "items") return devtools.mapItems(id);
  if (action === "state") {
    const superstep = Number(url.searchParams.get("superstep"));
    if (!Number.isInteger(superstep)) throw new HttpError(400, "state needs ?superstep=<integer>.");
    return devtools.state(id, superstep);
  }
  if (action !== undefined) throw new HttpError(405, `GET ${url.pathname} is not allowed: use POST.`);
  const workflow = await devtools.workflow(id);
  if (workflow === undefined) throw new HttpError(404, `No stored workflow '${id}'.`);
  return workflow;
}

function toAnswer(body: Record<string, unknown>): Answer {
  const { visit } = body;
  if (visit !== undefined && !Number.isSafeInteger(visit))
    throw new HttpError(400, "An answer's visit is the integer the workflow's pause was shown with.");
  const named = visit === undefined ? {} : { visit: visit as number };
  if (Object.hasOwn(body, "value")) return { value: body.value, ...named };
  const { action, text } = body;
  if (action !== "approve" && action !== "reject" && action !== "text")
    throw new HttpError(400, 'An answer is { value: <the answer> }, or { action: "approve" | "reject" | "text" }.');
  return { action, ...(typeof text === "string" ? { text } : {}), ...named };
}
