import { existsSync, writeFileSync } from "node:fs";
import type { Checkpointer, Durability } from "@graph/checkpoint";
import { INPUT_STEP } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { expect } from "vitest";
import { Runner } from "../../src/index.js";

/** Short leases: the resume after the crash waits for the dead process's lease to expire. */
const CRASH_LEASE = { leaseTtlMs: 400, leaseRenewIntervalMs: 150, stopPollIntervalMs: 150 };

/**
 * The graph of the "inputs first" check: `first` SIGKILLs its own process the first time it starts (before any
 * durability mode had a chance to write in the background), `second` runs after it.
 */
function inputsFirstGraph(marker: string): Graph {
  const first = node({ name: "first", output: "a" }, ({ text }: { text: string }) => {
    if (!existsSync(marker)) {
      writeFileSync(marker, "crashed");
      process.kill(process.pid, "SIGKILL");
    }
    return `A:${text}`;
  });
  const second = node({ name: "second", output: "b" }, async ({ a }: { a: string }) => `B:${a}`);
  return new Graph([first, second], { name: "inputs-first" });
}

/** The child's side: starts the run that dies in its first node. Never returns normally. */
export async function crashInFirstNode(checkpointer: Checkpointer, workflowId: string, marker: string): Promise<void> {
  const runner = new Runner({ checkpointer, ...CRASH_LEASE });
  await runner.run(inputsFirstGraph(marker), { workflowId, values: { text: "hi" } } as never);
  throw new Error("the run should have killed its process");
}

/**
 * The parent's side, after the child died: the workflow and its input record are stored, and a resume by id (no
 * values) completes exactly as an uninterrupted run would.
 */
export async function resumeAfterFirstInstantCrash(
  checkpointer: Checkpointer,
  workflowId: string,
  marker: string,
  durability: Durability,
): Promise<void> {
  expect(existsSync(marker), "the child crashed in its first node").toBe(true);
  const inputs = (await checkpointer.getSteps(workflowId, { includeInputs: true })).filter(
    (s) => s.nodeName === INPUT_STEP,
  );
  expect(
    inputs.map((s) => s.values),
    `${durability}: the input record survived the crash`,
  ).toEqual([{ text: "hi" }]);
  await new Promise((r) => setTimeout(r, CRASH_LEASE.leaseTtlMs + 100));
  const runner = new Runner({ checkpointer, ...CRASH_LEASE });
  try {
    // force: the child loaded this module through tsx, the test through vitest, whose transform rewrites the
    // functions' source (imports): the same graph hashes differently in the two processes.
    const resumed = await runner.run(inputsFirstGraph(marker), { workflowId, force: true } as never);
    expect(resumed.status).toBe("completed");
    expect(resumed.values).toEqual({ a: "A:hi", b: "B:A:hi" });
  } finally {
    await runner.close();
  }
}
