// HTTP plumbing of the devtools server: errors with a status, the token and origin checks, JSON bodies, and the
// Server-Sent Events stream with replay.
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Devtools } from "../Devtools.js";
import type { PageEvent } from "../EventLog.js";

const KEEPALIVE_MS = 15_000;
const MAX_BODY = 256 * 1024;

export class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** `decodeURIComponent` that answers 400 (not 500) for a malformed escape such as `%E0%A4%A`. */
export function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new HttpError(400, `Malformed URL: '${part}' is not valid percent-encoding.`);
  }
}

export function checkToken(expected: string, given: string | string[]): void {
  const a = Buffer.from(expected);
  const b = Buffer.from(Array.isArray(given) ? (given[0] ?? "") : given);
  if (a.length !== b.length || !timingSafeEqual(a, b))
    throw new HttpError(401, "Missing or wrong devtools token: open the URL the process printed (it has ?token=…).");
}

export function checkOrigin(req: IncomingMessage, allowedHosts: readonly string[]): void {
  const origin = req.headers.origin;
  if (origin !== undefined && !allowedHosts.some((h) => origin === `http://${h}`))
    throw new HttpError(403, `Writes from origin '${origin}' are not allowed.`);
  if (!(req.headers["content-type"] ?? "").startsWith("application/json"))
    throw new HttpError(415, "Writes must send Content-Type: application/json.");
}

export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new HttpError(413, "Request body too large.");
    chunks.push(chunk as Buffer);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
  } catch {
    throw new HttpError(400, "The request body is not JSON.");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new HttpError(400, "The request body must be a JSON object.");
  return body as Record<string, unknown>;
}

/** A field of a body that must be an object of values (`values` of a run or a fork). */
export function recordField(body: Record<string, unknown>, field: string): Record<string, unknown> {
  const v = body[field];
  if (v === undefined) return {};
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw new HttpError(400, `'${field}' must be an object of values by name.`);
  return v as Record<string, unknown>;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" });
  res.end(JSON.stringify(body));
}

/**
 * Server-Sent Events. A reconnecting page sends `Last-Event-ID` and gets only what it missed; when that was already
 * dropped from the bounded log (or on a first connect) it gets a `reset` and everything kept.
 */
export function streamEvents(
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
    res.write(`event: reset\ndata: ${JSON.stringify({ notKept: devtools.log.notKept })}\n\n`);
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
