// Who may touch a chat, over HTTP against a real server process: a chat lives in its caller's scope, so another user
// can neither read its stream, answer its pause nor stop its run, and no chat id reaches a workflow that is not one.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
import { Graph, node } from "@graph/core";
import { Runner } from "@graph/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";

let dir: string;
let child: ChildProcess;
let url: string;
let checkpointer: SqliteCheckpointer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "graph-chat-access-"));
  const db = join(dir, "chat.db");
  checkpointer = new SqliteCheckpointer({ path: db });
  // Workflows other code keeps in the same store: a plain one, and one squatting on a chat-shaped id.
  const orders = new Graph(
    [
      node({ output: "total", inputs: { n: z.number() } }, function double({ n }) {
        return n * 2;
      }),
    ],
    {
      name: "orders",
    },
  );
  const other = new Runner({ checkpointer: new SqliteCheckpointer({ path: db }) }); // close() closes its store
  expect((await other.run(orders, { workflowId: "orders-1", values: { n: 1 } })).status).toBe("completed");
  expect((await other.run(orders, { workflowId: "chat/alice/imported", values: { n: 2 } })).status).toBe("completed");
  await other.close();

  const fixture = fileURLToPath(new URL("./fixtures/chatServer.ts", import.meta.url));
  child = spawn(process.execPath, ["--conditions=@graph/source", "--import", "tsx", fixture, db], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (data: Buffer) => {
      out += data.toString("utf8");
      const line = out.split("\n")[0];
      if (out.includes("\n") && line !== undefined) resolve(line.trim());
    });
    child.once("exit", (code) => reject(new Error(`the chat server exited (${code}) before it listened`)));
  });
}, 60_000);

afterAll(async () => {
  if (child !== undefined && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
  await checkpointer?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const user = (text: string) => ({ id: `u-${text}`, role: "user", parts: [{ type: "text", text }] });

/** Sends a request as `who` (no header: an anonymous caller). */
function call(who: string | undefined, path: string, body?: unknown): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: body === undefined && !path.endsWith("/stop") ? "GET" : "POST",
    headers: { "content-type": "application/json", ...(who === undefined ? {} : { "x-user": who }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** The data parts of an SSE UI message stream, in order. */
async function partsOf(response: Response): Promise<{ type: string; data?: unknown }[]> {
  const text = await response.text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line !== "data: [DONE]")
    .map((line) => JSON.parse(line.slice(6)) as { type: string; data?: unknown });
}

describe("GraphChat access over HTTP (a server process with authorize)", () => {
  it("user B cannot read, answer or stop user A's chat; anonymous callers get 403 and nothing is written", async () => {
    const first = await call("alice", "/api/chat", { id: "c1", messages: [user("fast")] });
    expect(first.status).toBe(200);
    const parts = await partsOf(first);
    expect(parts.find((p) => p.type === "data-node-suspense")?.data).toMatchObject({
      name: "approval",
      responseKey: "decision",
      workflowId: "chat/alice/c1",
    });
    expect((await checkpointer.getWorkflow("chat/alice/c1"))?.status).toBe("paused");

    // Bob's "c1" is another chat: nothing to read, nothing waiting for his answer.
    expect((await call("bob", "/api/chat/c1/stream")).status).toBe(204);
    const answer = await call("bob", "/api/chat", {
      id: "c1",
      resume: { responseKey: "decision", value: { approved: true } },
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ code: "no_pending_pause" });
    expect(await (await call("bob", "/api/chat/c1/stop")).json()).toEqual({ stopped: false });
    expect(await checkpointer.getWorkflow("chat/bob/c1")).toBeUndefined();

    // No caller: 403 on every route, and the chat is untouched.
    for (const [path, body] of [
      ["/api/chat/c1/stream", undefined],
      ["/api/chat/c1/stop", undefined],
      ["/api/chat", { id: "c1", resume: { responseKey: "decision", value: { approved: false } } }],
      ["/api/chat", { id: "c2", messages: [user("fast")] }],
    ] as const) {
      const refused = await call(undefined, path, body);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ error: "ChatRequestError", code: "forbidden" });
    }
    const alice = await checkpointer.getWorkflow("chat/alice/c1");
    expect(alice?.status).toBe("paused");
    expect(await checkpointer.getState("chat/alice/c1")).not.toHaveProperty("decision");
    expect(await checkpointer.getWorkflow("chat/local/c2")).toBeUndefined();

    // Alice still reads and answers her own chat.
    const again = await partsOf(await call("alice", "/api/chat/c1/stream"));
    expect(again.find((p) => p.type === "data-run")?.data).toMatchObject({ status: "paused" });
    const done = await partsOf(
      await call("alice", "/api/chat", { id: "c1", resume: { responseKey: "decision", value: { approved: true } } }),
    );
    expect(done.find((p) => p.type === "data-run")?.data).toMatchObject({ status: "completed" });
    expect((await checkpointer.getState("chat/alice/c1")).sent).toBe("SENT draft for fast");
  }, 60_000);

  it("user B's stop does not stop user A's live run; A's own stop does", async () => {
    const live = await call("alice", "/api/chat", { id: "slow-1", messages: [user("slow")] });
    expect(live.status).toBe(200);
    const reader = (live.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // the run is live
    expect(await (await call("bob", "/api/chat/slow-1/stop")).json()).toEqual({ stopped: false });
    const watching = await call("bob", "/api/chat/slow-1/stream");
    expect(watching.status).toBe(204);
    expect((await checkpointer.getWorkflow("chat/alice/slow-1"))?.status).toBe("running");
    expect(await (await call("alice", "/api/chat/slow-1/stop")).json()).toEqual({ stopped: true });
    let text = "";
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    expect(text).toContain('"status":"stopped"');
    expect((await checkpointer.getWorkflow("chat/alice/slow-1"))?.status).toBe("stopped");
  }, 60_000);

  it("a chat id that names another workflow, or is not one segment, is refused before anything is read", async () => {
    // A workflow of another graph under the derived id is not a chat of this server.
    for (const path of ["/api/chat/imported/stream", "/api/chat/imported/stop"]) {
      const refused = await call("alice", path);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ code: "invalid_chat_id" });
    }
    const answer = await call("alice", "/api/chat", { id: "imported", messages: [user("fast")] });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ code: "invalid_chat_id" });

    // Ids that try to leave the caller's scope.
    for (const id of ["../orders-1", "orders-1/x", "chat/alice/c1", "", ".hidden", "x".repeat(129), "a b"]) {
      const refused = await call("bob", "/api/chat", { id, messages: [user("fast")] });
      expect(refused.status, id).toBe(400);
      expect((await refused.json()).code, id).toBe(id === "" ? "invalid_request" : "invalid_chat_id");
    }
    // A plain workflow's id as a chat id reaches the caller's own (empty) chat of that name, never the workflow.
    expect((await call("bob", "/api/chat/orders-1/stream")).status).toBe(204);
    expect(await (await call("bob", "/api/chat/orders-1/stop")).json()).toEqual({ stopped: false });
    expect((await checkpointer.getWorkflow("orders-1"))?.status).toBe("completed");
    expect((await checkpointer.getWorkflow("chat/alice/imported"))?.graphName).toBe("orders");
    // A scope returned by authorize must be one segment: "a/b" would be a server bug, answered 500.
    const slashed = await call("a/b", "/api/chat/c9/stream");
    expect(slashed.status).toBe(500);
    expect((await slashed.json()).error).toContain("is not a scope");
  }, 60_000);
});
