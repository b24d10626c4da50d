/**
 * Writes of the workflow row — create, claim, release, update, and the merged first and last writes of a run
 * (`startWorkflow`, `finishWorkflow`) — as transaction programs (see `program.ts`), plus the validation and
 * serialisation of an update, done before any transaction opens.
 */
import type { Fence, Lease, NewWorkflow, WorkflowUpdate } from "../../Checkpointer.js";
import type { Serializer } from "../../Serializer.js";
import { leaseHeldError, pauseSettledError, staleFenceError, unknownWorkflowError } from "../leases.js";
import { encodeWorkflowUpdate } from "../updates.js";
import type { BulkStatements, FinalUpdate } from "./bulkStatements.js";
import type { AnyDb, TableLayout } from "./layout.js";
import { checkFence, lockInOrder } from "./leases.js";
import type { Program } from "./program.js";
import { firstRow } from "./program.js";
import type { WorkflowRow } from "./rows.js";
import type { HotStatements } from "./statements.js";
import type { Counters, EncodedGroup, StepContext } from "./stepWrites.js";
import { saveGroup } from "./stepWrites.js";

/** What workflow writes need from the store. */
export interface WorkflowContext extends StepContext {
  readonly statements: HotStatements;
  readonly bulk: BulkStatements;
  readonly layout: TableLayout;
  readonly db: AnyDb;
}

type LeaseColumns = Pick<WorkflowRow, "lease_epoch" | "lease_owner" | "lease_expires_at">;

/** Validates an update and serialises its values (see `encodeWorkflowUpdate`): the changed columns. */
export function encodeUpdate(
  id: string,
  update: WorkflowUpdate,
  serializer: Serializer,
  operation: string,
): FinalUpdate["changes"] {
  const encoded = encodeWorkflowUpdate(id, update, serializer, operation);
  return {
    ...(encoded.status === undefined ? {} : { status: encoded.status }),
    ...(encoded.graphHash === undefined ? {} : { graph_hash: encoded.graphHash }),
    ...(encoded.pause === undefined ? {} : { pause: encoded.pause }),
    ...(encoded.error === undefined ? {} : { error: encoded.error }),
    ...(encoded.stopRequested === undefined ? {} : { stop_requested: null }),
    ...(encoded.wakeAt === undefined ? {} : { wake_at: encoded.wakeAt }),
    ...(encoded.waitingFor === undefined
      ? {}
      : { waiting_event: encoded.waitingFor?.event ?? null, waiting_key: encoded.waitingFor?.key ?? null }),
  };
}

/**
 * Inserts the workflow unless it exists; returns the stored row and whether it was created now. With a fence the
 * guard's row is locked and its epoch checked first, so a claim of the guard cannot slip in before the insert.
 */
export function* createIn(
  context: WorkflowContext,
  workflow: NewWorkflow,
  fence?: Fence,
): Program<{ row: WorkflowRow; created: boolean }> {
  if (fence !== undefined) {
    const guardId = fence.workflowId ?? workflow.id;
    const guard = firstRow<LeaseColumns>(yield context.statements.lockWorkflow(guardId));
    if (guard === undefined) throw unknownWorkflowError(guardId, "createWorkflow");
    if (Number(guard.lease_epoch) !== fence.epoch) {
      throw staleFenceError(
        guardId,
        "createWorkflow",
        fence.epoch,
        {
          epoch: Number(guard.lease_epoch),
          ...(guard.lease_owner === null
            ? {}
            : { owner: guard.lease_owner, expiresAt: new Date(Number(guard.lease_expires_at ?? 0)) }),
        },
        workflow.id,
      );
    }
  }
  const d = context.layout;
  const now = Date.now();
  const inserted = firstRow<WorkflowRow>(
    yield d
      .scoped(context.db)
      .insertInto(d.names.workflows)
      .values({
        id: workflow.id,
        // A delayed start waits, paused, for its due time.
        status: workflow.wakeAt === undefined ? "running" : "paused",
        wake_at: workflow.wakeAt?.getTime() ?? null,
        graph_name: workflow.graphName,
        graph_hash: workflow.graphHash,
        parent_id: workflow.parentId ?? null,
        last_superstep: -1,
        step_count: 0,
        lease_epoch: 0,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column("id").doNothing())
      .returningAll()
      .compile(),
  );
  if (inserted !== undefined) return { row: inserted, created: true };
  return { row: firstRow<WorkflowRow>(yield context.bulk.selectWorkflow(workflow.id))!, created: false };
}

/**
 * Takes or renews the lease with one conditional UPDATE: the database decides atomically who wins. A live lease
 * of the same owner is renewed with its epoch kept (its in-flight fenced writes stay valid), even just after
 * expiry, since nobody claimed in between (a claim changes the owner); any other claim bumps the epoch.
 */
export function* claimIn(
  context: WorkflowContext,
  id: string,
  owner: string,
  ttlMs: number,
  operation: string,
  ifPausedAt?: number,
): Program<Lease> {
  const now = Date.now();
  const expiresAt = now + Math.ceil(ttlMs);
  // An answer's claim carries the pause in the same UPDATE: a statement that waited for a row lock rechecks its
  // WHERE on the committed row, so of several answers to one pause exactly one matches.
  const claimed = firstRow<{ lease_epoch: number | string }>(
    yield context.statements.claim(id, owner, expiresAt, now, ifPausedAt),
  );
  if (claimed !== undefined) {
    return { workflowId: id, owner, epoch: Number(claimed.lease_epoch), expiresAt: new Date(expiresAt) };
  }
  const current = firstRow<WorkflowRow>(yield context.bulk.selectWorkflow(id));
  if (current === undefined) throw unknownWorkflowError(id, operation);
  const lastSuperstep = Number(current.last_superstep);
  if (ifPausedAt !== undefined && (current.status !== "paused" || lastSuperstep !== ifPausedAt))
    throw pauseSettledError(id, ifPausedAt, { status: current.status, lastSuperstep });
  throw leaseHeldError(id, current.lease_owner ?? "unknown", new Date(Number(current.lease_expires_at ?? 0)));
}

/** `createWorkflow` + `claimWorkflow`: a new workflow is inserted with its lease in one statement. */
export function* startIn(
  context: WorkflowContext,
  workflow: NewWorkflow,
  owner: string,
  ttlMs: number,
): Program<{ row: WorkflowRow; created: boolean; lease: Lease }> {
  const now = Date.now();
  const expiresAt = now + Math.ceil(ttlMs);
  const inserted = firstRow<WorkflowRow>(yield context.bulk.insertClaimed(workflow, owner, expiresAt, now));
  if (inserted !== undefined) {
    const lease = {
      workflowId: workflow.id,
      owner,
      epoch: Number(inserted.lease_epoch),
      expiresAt: new Date(expiresAt),
    };
    return { row: inserted, created: true, lease };
  }
  const row = firstRow<WorkflowRow>(yield context.bulk.selectWorkflow(workflow.id))!;
  return { row, created: false, lease: yield* claimIn(context, workflow.id, owner, ttlMs, "startWorkflow") };
}

/** Locks the workflow (and the root guarding it, first) and checks the fence. */
function* lockAndCheck(
  context: WorkflowContext,
  id: string,
  fence: Fence | undefined,
  operation: string,
): Program<void> {
  // A child guarded by its root: lock the root first (the order every multi-row write uses).
  if (fence?.workflowId !== undefined && fence.workflowId !== id)
    yield context.statements.lockWorkflow(fence.workflowId);
  const workflow = firstRow<LeaseColumns>(yield context.statements.lockWorkflow(id));
  if (workflow === undefined) throw unknownWorkflowError(id, operation);
  yield* checkFence(context.statements, id, workflow, fence, operation);
}

/** A fenced update of the workflow row; returns the row after it. */
export function* updateIn(
  context: WorkflowContext,
  id: string,
  changes: FinalUpdate["changes"],
  fence: Fence | undefined,
): Program<WorkflowRow> {
  yield* lockAndCheck(context, id, fence, "updateWorkflow");
  const row = firstRow<WorkflowRow>(yield context.bulk.finalUpdate(id, { changes, updatedAt: Date.now() }));
  return row!;
}

/** The end of a run: the groups' steps, the fenced update and the release, in the calling transaction. */
export function* finishIn(
  context: WorkflowContext,
  id: string,
  groups: readonly EncodedGroup[],
  changes: FinalUpdate["changes"],
  fence: Fence | undefined,
  release: Pick<Lease, "owner" | "epoch"> | undefined,
): Program<WorkflowRow> {
  yield* lockInOrder(context.statements, groups, fence?.workflowId === undefined ? [id] : [id, fence.workflowId]);
  let counters: Counters | undefined;
  let checked = false;
  for (const group of groups) {
    const own = group.steps[0]!.workflowId === id;
    const written = yield* saveGroup(context, group, "finishWorkflow", own);
    if (own) {
      counters = written;
      // The group's own fence check already covered the update when both carry the same guard.
      checked = group.fence?.epoch === fence?.epoch && group.fence?.workflowId === fence?.workflowId;
    }
  }
  if (!checked) yield* lockAndCheck(context, id, fence, "finishWorkflow");
  const row = firstRow<WorkflowRow>(
    yield context.bulk.finalUpdate(id, { changes, counters, release, updatedAt: Date.now() }),
  );
  if (row === undefined) throw unknownWorkflowError(id, "finishWorkflow");
  return row;
}
