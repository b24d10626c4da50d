/** Helpers the engine tests and the durability matrices share: comparing stored steps, logs, leases. */
import fs from "node:fs";
import type { Checkpointer, StepRecord } from "@graph/checkpoint";
import type { Runner } from "@graph/runtime";
import { RunResult } from "@graph/runtime";
import { sleep } from "./fixtures.js";

/** Timeout of the slow engine tests. */
export const SLOW = 120_000;

/** A step as the comparison sees it: what it is, not when or at which superstep/index it was written. */
export interface ComparableStep {
  readonly nodeName: string;
  readonly status: string;
  readonly values: Readonly<Record<string, unknown>>;
  readonly decision?: StepRecord["decision"];
  readonly child?: string;
}

/** Plain values of a result (nested RunResults left out: they carry run ids). */
export function plainValues(result: RunResult): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(result.values)) if (!(v instanceof RunResult)) values[k] = v;
  return values;
}

export function count(log: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of [...log].sort()) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

export function readLog(file: string): string[] {
  return fs.existsSync(file)
    ? fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line !== "")
    : [];
}

export function comparable(rootId: string, step: StepRecord): ComparableStep {
  return {
    nodeName: step.nodeName,
    status: step.status,
    values: step.values,
    ...(step.decision === undefined ? {} : { decision: step.decision }),
    ...(step.childWorkflowId === undefined ? {} : { child: step.childWorkflowId.slice(rootId.length) }),
  };
}

export function tagOf(error: unknown): string | undefined {
  const tag = (error as { _tag?: unknown } | null)?._tag;
  return typeof tag === "string" ? tag : undefined;
}

/** Closes a runner that may have lost its storage; never hangs the test. */
export async function closeQuietly(runner: Runner): Promise<void> {
  await Promise.race([runner.close().catch(() => undefined), sleep(3000)]);
}

/** Runs `body` until it does not fail with `WorkflowConflictError` (a dead holder's lease has to expire first). */
export async function untilLeaseFree<A>(leaseTtlMs: number, body: () => Promise<A>): Promise<A> {
  const deadline = Date.now() + 20 * leaseTtlMs + 15_000;
  for (;;) {
    try {
      return await body();
    } catch (error) {
      if (tagOf(error) !== "WorkflowConflictError" || Date.now() > deadline) throw error;
      await sleep(Math.max(20, Math.min(100, leaseTtlMs / 3)));
    }
  }
}

/** Waits until no live lease is held on the workflow. */
export async function leaseExpired(handle: Checkpointer, id: string, leaseTtlMs: number): Promise<void> {
  const deadline = Date.now() + 20 * leaseTtlMs + 15_000;
  for (;;) {
    const lease = (await handle.getWorkflow(id))?.lease;
    if (lease === undefined || lease.expiresAt.getTime() < Date.now() - 20) return;
    if (Date.now() > deadline) throw new Error(`the lease on '${id}' never expired: ${JSON.stringify(lease)}`);
    await sleep(25);
  }
}
