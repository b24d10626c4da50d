import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Checkpointer } from "@graph/checkpoint";
import { BUDGET_KEY } from "@graph/core";
import { describe, expect, it } from "vitest";
import { Runner } from "../../src/index.js";
import { spenderGraph } from "./budget.js";
import { child, type StartChild } from "./children.js";

/**
 * The crash check of budgets: a child process runs the agent loop of `spenderGraph` (300 tokens a call, 10 calls)
 * under a 1,000-token budget until it pauses, reports the pause and is SIGKILLed while paused; another process
 * opens the same store and answers the pause with "+1,000 tokens", then "+5,000". The totals must go on from the
 * stored ones (no call forgotten, none run twice). Each model call appends `<pid>` to `log`.
 */
const graphFor = (log: string) => spenderGraph({ n: 0 }, 10, () => appendFileSync(log, `${process.pid}\n`));

/** The child's side: runs to the budget pause, reports it, and waits to be killed. */
export async function spendThenWaitToDie(checkpointer: Checkpointer, log: string, id: string): Promise<void> {
  const runner = new Runner({ checkpointer, leaseTtlMs: 400, leaseRenewIntervalMs: 150 });
  const result = await runner.run(graphFor(log), {
    values: { history: [] },
    workflowId: id,
    budget: { tokens: 1_000 },
  });
  process.send?.({ status: result.status, pause: result.pause, usage: result.usage });
  setInterval(() => {}, 1_000);
}

/** What the resuming process saw. */
export interface ResumedSpender {
  readonly paused: { readonly status: string; readonly pause: unknown; readonly usage: unknown };
  readonly done: { readonly status: string; readonly usage: unknown; readonly history: unknown };
  readonly pid: number;
}

/** The other process: answers the pause twice (+1,000 tokens, then +5,000) and reports both results. */
export async function resumeWithGrants(checkpointer: Checkpointer, log: string, id: string): Promise<ResumedSpender> {
  const runner = new Runner({ checkpointer });
  const graph = graphFor(log);
  const options = { workflowId: id, waitForLease: true } as const;
  const paused = await runner.run(graph, { ...options, values: { [BUDGET_KEY]: { tokens: 1_000 } } });
  const done = await runner.run(graph, { ...options, values: { [BUDGET_KEY]: { tokens: 5_000 } } });
  await runner.close();
  return {
    paused: { status: paused.status, pause: paused.pause, usage: paused.usage },
    done: { status: done.status, usage: done.usage, history: done.get("history") },
    pid: process.pid,
  };
}

/** Registers the crash check on one adapter. `startFor(id)` prepares a fresh store and says how to start a child. */
export function describeBudgetCrash(where: string, startFor: (id: string) => Promise<StartChild>, id: string): void {
  describe(`SIGKILL while paused for its budget (${where}, real processes)`, () => {
    it("another process answers the pause; the totals go on from the stored ones", { timeout: 120_000 }, async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "graph-budget-crash-"));
      try {
        const log = path.join(dir, "calls.log");
        const start = await startFor(id);
        const spender = child(start, ["spend", log, id]);
        const first = (await spender.message) as { status: string; pause: { value: unknown }; usage: unknown };
        spender.proc.kill("SIGKILL");
        expect(await spender.exit).toBe("SIGKILL");
        expect(first.status).toBe("paused");
        expect(first.pause.value).toEqual({
          spent: { tokens: 1_200, costUsd: 0.04, calls: 4 },
          budget: { tokens: 1_000 },
          exceeded: ["tokens"],
        });
        const resumer = child(start, ["resume", log, id]);
        const seen = (await resumer.message) as ResumedSpender;
        expect(await resumer.exit).toBe(0);
        // The stored totals (1,200) plus three calls crossed the raised budget (2,000).
        expect(seen.paused.status).toBe("paused");
        expect(seen.paused.pause).toMatchObject({
          reason: "budget",
          nodeName: "think",
          value: { spent: { tokens: 2_100, calls: 7 }, budget: { tokens: 2_000 }, exceeded: ["tokens"] },
        });
        expect(seen.done.status).toBe("completed");
        expect(seen.done.usage).toMatchObject({ tokens: 3_000, calls: 10 });
        expect(seen.done.history).toHaveLength(10);
        const lines = existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [];
        expect(lines).toEqual([...Array(4).fill(String(spender.proc.pid)), ...Array(6).fill(String(seen.pid))]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
