// Every server of docs/ai-sdk.md runs as written, as a real process: it answers bad requests with their status and
// keeps serving, then streams a good turn. (The type-check of examples.test.ts compiles the same blocks.)
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { findExamples } from "../src/examples.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
const servers = findExamples(root).filter((e) => e.where.startsWith("docs/ai-sdk.md:") && e.code.includes(".listen("));
const tsx = fileURLToPath(import.meta.resolve("tsx"));

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Starts the snippet in an empty folder (its files land there) and waits until it answers. */
async function start(code: string): Promise<{ url: string; child: ChildProcess; log: () => string }> {
  const dir = mkdtempSync(path.join(tmpdir(), "graph-doc-server-"));
  // The snippet imports the packages as a user's project does; the doctest package's dependencies stand in for it.
  symlinkSync(path.join(root, "tools/doctest/node_modules"), path.join(dir, "node_modules"), "dir");
  writeFileSync(path.join(dir, "package.json"), '{ "type": "module" }\n');
  const port = await freePort();
  expect(code).toContain(".listen(3000");
  writeFileSync(path.join(dir, "server.ts"), code.replace(".listen(3000", `.listen(${port}`));
  let output = "";
  const child = spawn(
    process.execPath,
    ["--conditions=@graph/source", "--import", pathToFileURL(tsx).href, "server.ts"],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout?.on("data", (d: Buffer) => void (output += d.toString("utf8")));
  child.stderr?.on("data", (d: Buffer) => void (output += d.toString("utf8")));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${output}`);
    const up = await fetch(`${url}/api/chat/probe/stream`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`the server did not answer within 60 s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, child, log: () => output };
}

const post = (url: string, body: string) =>
  fetch(`${url}/api/chat`, { method: "POST", headers: { "content-type": "application/json" }, body });
const turn = (id: string, text: string) =>
  JSON.stringify({ id, messages: [{ id: `u-${text}`, role: "user", parts: [{ type: "text", text }] }] });

describe("the servers of docs/ai-sdk.md", () => {
  it("has at least one", () => {
    expect(servers.length).toBeGreaterThanOrEqual(1);
  });

  it.each(servers.map((e) => [e.where, e] as const))("%s answers bad requests and keeps serving", async (_, e) => {
    const { url, child, log } = await start(e.code);

    const notJson = await post(url, "{ not json");
    expect(notJson.status).toBe(400);
    const noMessage = await post(url, JSON.stringify({ id: "c1" }));
    expect(noMessage.status).toBe(400);
    expect(await noMessage.json()).toMatchObject({ error: "ChatRequestError", code: "invalid_request" });
    const badId = await post(url, turn("../other", "hi"));
    expect(badId.status).toBe(400);
    expect(await badId.json()).toMatchObject({ code: "invalid_chat_id" });
    const noPause = await post(url, JSON.stringify({ id: "c1", resume: { responseKey: "x", value: 1 } }));
    expect(noPause.status).toBe(400);
    expect(await noPause.json()).toMatchObject({ code: "no_pending_pause" });
    expect((await fetch(`${url}/api/chat/c1/stream`)).status).toBe(204);
    expect((await fetch(`${url}/api/chat/a%2Fb/stream`)).status).toBe(400);
    const stop = await fetch(`${url}/api/chat/c1/stop`, { method: "POST" });
    expect(stop.status).toBe(200);
    expect(await stop.json()).toEqual({ stopped: false });

    // Still up: a good turn streams its answer to the end.
    for (const text of ["hi", "again"]) {
      const ok = await post(url, turn("c1", text));
      expect(ok.status).toBe(200);
      const sse = await ok.text();
      const deltas = sse
        .split("\n")
        .filter((l) => l.startsWith("data: {"))
        .map((l) => JSON.parse(l.slice(6)) as { type: string; delta?: string; data?: { status?: string } });
      expect(
        deltas
          .filter((c) => c.type === "text-delta")
          .map((c) => c.delta)
          .join(""),
      ).toBe(`You asked: ${text} `);
      expect(deltas.find((c) => c.type === "data-run")?.data?.status).toBe("completed");
    }
    expect(child.exitCode, log()).toBeNull();
  });
});
