/**
 * Everything stored about a workflow tree — the root and every child workflow (`<root>/…`) — read back for exact
 * comparisons: "nothing was written" means this is equal before and after, record fields and every step (the input
 * step included).
 */
import type { Checkpointer, StepRecord, WorkflowRecord } from "@graph/checkpoint";

/** One workflow of a tree as stored. */
export interface StoredWorkflow {
  readonly id: string;
  readonly workflow: WorkflowRecord | undefined;
  readonly steps: readonly StepRecord[];
}

/** The ids of the stored workflows `rootId` and `rootId/…` (listing the whole store: suites share one database). */
export async function treeIds(checkpointer: Checkpointer, rootId: string): Promise<string[]> {
  const found: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await checkpointer.listWorkflows({ limit: 500, ...(cursor === undefined ? {} : { cursor }) });
    for (const workflow of page.workflows) {
      if (workflow.id === rootId || workflow.id.startsWith(`${rootId}/`)) found.push(workflow.id);
    }
    for (const skipped of page.skipped ?? []) {
      if (skipped.id === rootId || skipped.id.startsWith(`${rootId}/`))
        throw new Error(`stored workflow '${skipped.id}' is unreadable: ${skipped.error.message}`);
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return found.sort();
}

/**
 * The stored tree of `rootId`, in id order: every listed workflow plus the `expected` ids (absent ones with
 * `workflow: undefined`, so a record that appears later shows up as a difference).
 */
export async function storedTree(
  checkpointer: Checkpointer,
  rootId: string,
  expected: readonly string[] = [rootId],
): Promise<StoredWorkflow[]> {
  const ids = [...new Set([...expected, ...(await treeIds(checkpointer, rootId))])].sort();
  return Promise.all(
    ids.map(async (id) => ({
      id,
      workflow: await checkpointer.getWorkflow(id),
      steps: await checkpointer.getSteps(id, { includeInputs: true }),
    })),
  );
}

const shown = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v instanceof Map ? { Map: [...v] } : v instanceof Set ? { Set: [...v] } : typeof v === "bigint" ? `${v}n` : v,
  ) ?? "undefined";

/**
 * What differs between two reads of a tree, one line per change (`<id>: status "paused" → "failed"`, `<id>: record
 * created`, `<id>: steps 3 → 4`): an empty list when nothing changed. Failure messages use it, since a deep equality
 * of whole trees prints little about where they differ.
 */
export function treeChanges(before: readonly StoredWorkflow[], after: readonly StoredWorkflow[]): string[] {
  const changes: string[] = [];
  const earlier = new Map(before.map((w) => [w.id, w]));
  const later = new Map(after.map((w) => [w.id, w]));
  for (const id of [...new Set([...earlier.keys(), ...later.keys()])].sort()) {
    const a = earlier.get(id)?.workflow;
    const b = later.get(id)?.workflow;
    if (a === undefined && b !== undefined) changes.push(`${id}: record created (${shown(b)})`);
    else if (a !== undefined && b === undefined) changes.push(`${id}: record removed`);
    else if (a !== undefined && b !== undefined) {
      const fields = new Set([...Object.keys(a), ...Object.keys(b)]);
      for (const field of [...fields].sort()) {
        const x = shown((a as unknown as Record<string, unknown>)[field]);
        const y = shown((b as unknown as Record<string, unknown>)[field]);
        if (x !== y) changes.push(`${id}: ${field} ${x} → ${y}`);
      }
    }
    const stepsBefore = earlier.get(id)?.steps ?? [];
    const stepsAfter = later.get(id)?.steps ?? [];
    if (stepsBefore.length !== stepsAfter.length) {
      const names = (steps: readonly StepRecord[]) => steps.map((s) => `${s.superstep}:${s.nodeName}`).join(", ");
      changes.push(`${id}: steps [${names(stepsBefore)}] → [${names(stepsAfter)}]`);
    } else {
      stepsBefore.forEach((step, i) => {
        if (shown(step) !== shown(stepsAfter[i]))
          changes.push(`${id}: step ${step.superstep}:${step.nodeName} ${shown(step)} → ${shown(stepsAfter[i])}`);
      });
    }
  }
  return changes;
}

/**
 * The tree once it has stopped changing: read until two reads `quietMs` apart are equal (at most `timeoutMs`). A
 * run holding a workflow under `async` durability may still be writing the steps before the point it waits at.
 */
export async function settledTree(
  checkpointer: Checkpointer,
  rootId: string,
  { quietMs = 150, timeoutMs = 10_000 }: { readonly quietMs?: number; readonly timeoutMs?: number } = {},
): Promise<StoredWorkflow[]> {
  const deadline = Date.now() + timeoutMs;
  let last = await storedTree(checkpointer, rootId);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    const again = await storedTree(checkpointer, rootId);
    if (treeChanges(last, again).length === 0) return again;
    if (Date.now() > deadline)
      throw new Error(`the stored tree of '${rootId}' kept changing for ${timeoutMs} ms: ${treeChanges(last, again)}`);
    last = again;
  }
}
