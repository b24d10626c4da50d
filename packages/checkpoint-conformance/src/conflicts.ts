/**
 * The conflict matrix's building blocks, for packages that start runs some other way than `Runner` (a queue's
 * `RemoteRunner`): put a workflow into each state a losing caller meets, snapshot everything stored about it, and
 * list what changed.
 *
 * @example
 * ```ts
 * for (const state of CONFLICT_STATES) {
 *   const prepared = await prepareConflictWorkflow(checkpointer, state, `wf-${state}`);
 *   const before = await storedWorkflowTree(checkpointer, prepared.workflowId);
 *   // … the losing call …
 *   expect(workflowTreeChanges(before, await storedWorkflowTree(checkpointer, prepared.workflowId))).toEqual([]);
 *   await prepared.finish();
 * }
 * ```
 *
 * @module
 */
export {
  CONFLICT_STATES,
  CONFLICT_VALUES,
  type ConflictState,
  type ConflictWorkflow,
  conflictGraph,
  prepareConflictWorkflow,
} from "./internal/conflictGraphs.js";
export {
  type StoredWorkflow,
  storedTree as storedWorkflowTree,
  treeChanges as workflowTreeChanges,
} from "./internal/tree.js";
