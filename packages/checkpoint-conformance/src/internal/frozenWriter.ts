/**
 * A runner frozen (SIGSTOP) inside one of the store's write transactions, with `durability: "sync"`: another process
 * must take the workflow over within the frozen runner's lease plus the store's documented hold bound (for
 * PostgreSQL the idle-in-transaction timeout: the server ends the frozen transaction) plus the `waitForLease`
 * backoff (at most 1 s). A second test freezes it with its own lease renewal in flight, queued behind the lock it
 * holds: the row must not be held a second time.
 *
 * Only for stores whose write transactions span round trips to the client (where a frozen client can hold a lock):
 * the adapter module of `engine.childProcess` exports a hook (default name `insideWrite`) that calls back inside
 * each write transaction once its locks are taken. Redis scripts and SQLite's synchronous transactions have no such
 * moment.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Runner } from "@graph/runtime";
import { afterAll, describe, expect, it } from "vitest";
import type { FrozenWriterSpec } from "./frozenWriterChild.js";
import { frozenWriterGraph } from "./frozenWriterGraph.js";
import type { DescribeCheckpointerOptions } from "./options.js";
import { adapterRef, spawnScript } from "./processes.js";
import { reportTrials, trialCount } from "./trials.js";

/** Options of `describeFrozenWriter`. */
export interface FrozenWriterOptions {
  /** The longest a frozen writer's transaction keeps its locks (PostgreSQL: `idleInTransactionTimeoutMs`). */
  readonly holdBoundMs: number;
  /** The adapter module's hook export. Default `"insideWrite"`. */
  readonly hookExport?: string;
  /** How many locks the store holds right now on the test's storage (checked > 0 once the writer froze). */
  readonly locksHeld?: () => Promise<number>;
}

const LEASE_TTL_MS = 2_000;
const BACKOFF_MS = 1_000;
/** A loaded 2-core machine: the resume's own round trips and event-loop lag. */
const SLACK_MS = 2_500;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function describeFrozenWriter(options: DescribeCheckpointerOptions, frozen: FrozenWriterOptions): void {
  const child = options.engine?.childProcess;
  if (child === undefined)
    throw new Error(
      `describeFrozenWriter('${options.name}') needs engine.childProcess: the frozen runner is a real process.`,
    );
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });
  const trials = trialCount();
  let n = 0;

  /** One trial: how long after the frozen runner's lease expired the takeover's claim went through. */
  async function trial(settleMs: number, leaseTtlMs: number): Promise<number> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-frozen-writer-"));
    dirs.push(dir);
    const workflowId = `frozen-writer-${process.pid}-${Date.now()}-${n++}`;
    const spec: FrozenWriterSpec = {
      adapter: adapterRef(child!),
      hookExport: frozen.hookExport ?? "insideWrite",
      workflowId,
      dir,
      leaseTtlMs,
      settleMs,
    };
    const writer = spawnScript<{ type: string; message?: string }, never>(child!, "frozenWriterChild", spec);
    const checkpointer = await options.create({});
    const ran: string[] = [];
    const runner = new Runner({ checkpointer, owner: "takeover" });
    try {
      const marker = path.join(dir, "frozen");
      const deadline = Date.now() + 30_000;
      while (!fs.existsSync(marker) && Date.now() < deadline) await pause(20);
      expect(fs.existsSync(marker), `the runner did not freeze: ${writer.stderr()}`).toBe(true);
      if (frozen.locksHeld !== undefined) expect(await frozen.locksHeld()).toBeGreaterThan(0);
      const stored = await checkpointer.getWorkflow(workflowId);
      expect(stored?.status).toBe("running");
      const expiresAt = stored!.lease!.expiresAt.getTime();
      // `second` starts right after the takeover's claim went through.
      let claimedAt: number | undefined;
      const graph = frozenWriterGraph((name) => {
        claimedAt ??= Date.now();
        ran.push(name);
      });
      const result = await runner.run(graph, { workflowId, waitForLease: true });
      expect(result.status).toBe("completed");
      expect(result.values).toMatchObject({ a: 1, b: 2, c: 3 });
      // `first` was stored by the frozen runner; the step write it froze in never committed.
      expect(ran).toEqual(["second", "third"]);
      expect((await checkpointer.getSteps(workflowId)).map((s) => s.nodeName)).toEqual(["first", "second", "third"]);
      return claimedAt! - expiresAt;
    } finally {
      writer.kill();
      await writer.exit;
      await runner.close();
    }
  }

  const bound = frozen.holdBoundMs + BACKOFF_MS + SLACK_MS;
  describe(`a runner frozen inside a write transaction: ${options.name}`, () => {
    it(`another process takes the workflow over within its lease + the hold bound (${frozen.holdBoundMs} ms) + backoff`, {
      timeout: 60_000 + trials * 20_000,
    }, async () => {
      const late: number[] = [];
      for (let i = 0; i < trials; i++) late.push(await trial(0, LEASE_TTL_MS));
      for (const ms of late) expect(ms).toBeLessThan(bound);
      reportTrials(`frozen-writer ${options.name} takeover after lease expiry`, late);
    });

    it("also with its own lease renewal in flight, queued behind the lock it holds (the row is not held twice)", {
      timeout: 60_000 + trials * 25_000,
    }, async () => {
      const late: number[] = [];
      // A 900 ms lease renews every 300 ms: running on 700 ms inside the transaction sends at least one renewal.
      for (let i = 0; i < trials; i++) late.push(await trial(700, 900));
      for (const ms of late) expect(ms).toBeLessThan(bound);
      reportTrials(`frozen-writer ${options.name} takeover, renewal in flight`, late);
    });
  });
}
