import { fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { scriptCommand } from "@graph/checkpoint-conformance";
import { Runner } from "@graph/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresCheckpointer } from "../src/index.js";
import { frozenRunGraph } from "./fixtures/frozenRunGraph.js";
import { admin, DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

// A runner SIGSTOPped inside a write transaction (durability "sync") keeps the workflow row locked. The takeover by
// another process must still complete within its lease TTL plus the idle-in-transaction timeout (5 s by default:
// the server ends the frozen transaction) plus the waitForLease backoff (at most 1 s).
const script = fileURLToPath(new URL("./fixtures/frozenRunner.ts", import.meta.url));
const schema = randomSchema("frozenrun");
const dirs: string[] = [];
beforeAll(requirePostgres);
afterAll(async () => {
  await dropSchemas([schema]);
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

const LEASE_TTL_MS = 2_000;
const IDLE_IN_TRANSACTION_MS = 5_000;
const BACKOFF_MS = 1_000;
/** A loaded 2-core machine: process and connection start-up, the resume's own round trips. */
const SLACK_MS = 2_500;
const TRIALS = Math.max(1, Math.floor(Number(process.env["GRAPH_CONFORMANCE_TRIALS"] ?? 1)) || 1);

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** One trial: returns how long after the frozen holder's lease expired the takeover's claim went through. */
async function trial(n: number, settleMs = 0, leaseTtlMs = LEASE_TTL_MS): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-frozen-run-"));
  dirs.push(dir);
  const workflowId = `frozen-run-${process.pid}-${n}`;
  const command = scriptCommand(script);
  const child = fork(command.script, [schema, workflowId, dir, String(leaseTtlMs), String(settleMs)], {
    execArgv: [...command.execArgv],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let output = "";
  child.stderr?.on("data", (chunk: Buffer) => void (output += chunk.toString()));
  const checkpointer = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema });
  const ran: string[] = [];
  const runner = new Runner({ checkpointer, owner: "takeover" });
  try {
    const marker = path.join(dir, "frozen");
    await until(() => fs.existsSync(marker) || child.exitCode !== null, 30_000).catch(() => undefined);
    if (!fs.existsSync(marker)) throw new Error(`the runner did not freeze: ${output}`);
    const held = await admin<{ n: string }>(
      `SELECT count(*) AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
         JOIN pg_namespace ns ON ns.oid = c.relnamespace WHERE ns.nspname = '${schema}'`,
    );
    expect(Number(held[0]?.n), "the frozen runner holds locks on the store's tables").toBeGreaterThan(0);
    const frozen = await checkpointer.getWorkflow(workflowId);
    expect(frozen?.status).toBe("running");
    const expiresAt = frozen!.lease!.expiresAt.getTime();
    // `second` starts right after the takeover's claim went through.
    let claimedAt: number | undefined;
    const graph = frozenRunGraph((name) => {
      claimedAt ??= Date.now();
      ran.push(name);
    });
    const result = await runner.run(graph, { workflowId, waitForLease: true });
    expect(result.status).toBe("completed");
    expect(result.values).toMatchObject({ a: 1, b: 2, c: 3 });
    // `first` was stored by the frozen runner; its `second` step was never committed.
    expect(ran).toEqual(["second", "third"]);
    const steps = await checkpointer.getSteps(workflowId);
    expect(steps.map((s) => s.nodeName)).toEqual(["first", "second", "third"]);
    return claimedAt! - expiresAt;
  } finally {
    child.kill("SIGKILL");
    await runner.close();
  }
}

describe("a runner frozen (SIGSTOP) inside a PostgreSQL write transaction", () => {
  it("another process takes the workflow over within the lease TTL + the idle-in-transaction timeout + backoff", {
    timeout: 60_000 + TRIALS * 20_000,
  }, async () => {
    const late: number[] = [];
    for (let i = 0; i < TRIALS; i++) late.push(await trial(i));
    for (const ms of late) expect(ms).toBeLessThan(IDLE_IN_TRANSACTION_MS + BACKOFF_MS + SLACK_MS);
    const report = process.env["GRAPH_CONFORMANCE_REPORT"];
    if (report !== undefined && report !== "")
      fs.appendFileSync(
        report,
        `${JSON.stringify({ label: "frozen-run postgres takeover after lease expiry", trials: late.length, maxMs: Math.max(...late), valuesMs: [...late].sort((a, b) => a - b) })}\n`,
      );
  });

  it("also when its own lease renewal was in flight, queued behind the row lock it holds (no second hold after the first)", {
    timeout: 60_000 + TRIALS * 25_000,
  }, async () => {
    const late: number[] = [];
    // A 900 ms lease renews every 300 ms: staying 700 ms inside the transaction sends at least one renewal.
    for (let i = 0; i < TRIALS; i++) late.push(await trial(100 + i, 700, 900));
    for (const ms of late) expect(ms).toBeLessThan(IDLE_IN_TRANSACTION_MS + BACKOFF_MS + SLACK_MS);
    const report = process.env["GRAPH_CONFORMANCE_REPORT"];
    if (report !== undefined && report !== "")
      fs.appendFileSync(
        report,
        `${JSON.stringify({ label: "frozen-run postgres takeover, renewal in flight", trials: late.length, maxMs: Math.max(...late), valuesMs: [...late].sort((a, b) => a - b) })}\n`,
      );
  });
});
