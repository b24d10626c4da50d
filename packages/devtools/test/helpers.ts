import { request } from "node:http";
import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, interrupt, node } from "@graph/core";

export interface Reply {
  readonly status: number;
  readonly body: string;
  readonly json: () => unknown;
}

/** A raw HTTP request (fetch can't set Host or Origin). */
export function call(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: options.method ?? (body === undefined ? "GET" : "POST"),
        headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...options.headers },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, json: () => JSON.parse(text) }));
      },
    );
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Reads Server-Sent Events until `count` data events arrived; returns them and the event names seen. */
export function readEvents(
  port: number,
  token: string,
  count: number,
  lastEventId?: number,
): Promise<{
  names: string[];
  events: { id: number; type: string; [k: string]: unknown }[];
  /** The data of each `reset` (what the server's bounded log no longer keeps). */
  resets: { notKept?: number }[];
}> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: `/api/events?token=${token}`,
        headers: lastEventId === undefined ? {} : { "last-event-id": String(lastEventId) },
      },
      (res) => {
        let buffer = "";
        const names: string[] = [];
        const events: { id: number; type: string }[] = [];
        const resets: { notKept?: number }[] = [];
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          buffer += chunk;
          let end = buffer.indexOf("\n\n");
          while (end >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const name = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
            names.push(name);
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (name === "message" && data !== undefined) events.push(JSON.parse(data));
            if (name === "reset" && data !== undefined) resets.push(JSON.parse(data));
            end = buffer.indexOf("\n\n");
          }
          if (events.length >= count) {
            req.destroy();
            resolve({ names, events, resets });
          }
        });
      },
    );
    req.on("error", (e) => {
      if (!req.destroyed) reject(e);
    });
    req.end();
  });
}

/** draft → ⏸ approval → publish, with a nested graph: a small graph with everything the page shows. */
export function reviewGraph() {
  const shout = node({ output: "loud" }, function shout({ text }: { text: string }) {
    return text.toUpperCase();
  });
  const prepare = new Graph([shout], { name: "prepare" }).asNode();
  const approval = interrupt({ name: "approval", input: "loud", response: "ok" });
  const publish = node({ output: "published" }, function publish({ loud, ok }: { loud: string; ok: unknown }) {
    return ok === true ? loud : `not published (${String(ok)})`;
  });
  return new Graph([prepare, approval, publish], { name: "review" });
}

export const memory = () => new MemoryCheckpointer({ policy: { durability: "sync" } });
