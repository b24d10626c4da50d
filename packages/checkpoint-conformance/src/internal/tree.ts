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
