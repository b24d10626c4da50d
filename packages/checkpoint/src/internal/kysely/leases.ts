/**
 * Leases, fences and stop requests of the SQL store: the parts of `KyselyStore`'s operations that run inside its
 * write transactions (the store adds validation, setup, retries and error classification around them).
 */
import { sql } from "kysely";
import type { Fence, Lease, RenewedLease, StepRecord, StopRequest } from "../../Checkpointer.js";
import type { Serializer } from "../../Serializer.js";
import { leaseLostError, staleFenceError, stopAction, unknownWorkflowError } from "../leases.js";
import { decodeStopRequest, encodeStopRequest } from "../stopRequests.js";
import type { AnyDb, TableLayout } from "./layout.js";
import type { WorkflowRow } from "./rows.js";
import type { HotStatements } from "./statements.js";

/** What these operations need from the store. */
export interface LeaseContext {
  readonly layout: TableLayout;
  readonly statements: HotStatements;
  readonly serializer: Serializer;
}

type LeaseColumns = Pick<WorkflowRow, "lease_epoch" | "lease_owner" | "lease_expires_at">;

/** A stored stop request, or `undefined` for a NULL column. */
export function decodeStop(
  serializer: Serializer,
  id: string,
  text: string | null,
  operation: string,
): StopRequest | undefined {
  return text === null ? undefined : decodeStopRequest(serializer, id, text, operation);
}

/**
 * Locks every workflow row a multi-row write touches (the written workflows and the roots guarding them) in id
 * order first, so two writers never wait for each other in opposite orders.
 */
export async function lockInOrder(
  trx: AnyDb,
  statements: HotStatements,
  groups: readonly { readonly steps: readonly StepRecord[]; readonly fence?: Fence | undefined }[],
): Promise<void> {
  const ids: string[] = [];
  for (const group of groups) {
    ids.push(group.steps[0]!.workflowId);
    if (group.fence?.workflowId !== undefined) ids.push(group.fence.workflowId);
  }
  const lock = statements.lockInOrder(ids);
  if (lock !== undefined) await trx.executeQuery(lock);
}

/**
 * Checks the fence inside the write's transaction: against the written workflow's row (already locked), or for
 * a child guarded by its root, against the root's row, locked here so no claim can slip in before the commit.
 */
export async function checkFence(
  trx: AnyDb,
  statements: HotStatements,
  id: string,
  workflow: LeaseColumns,
  fence: Fence | undefined,
  operation: string,
): Promise<void> {
  if (fence === undefined) return;
  const guardId = fence.workflowId ?? id;
  let guard = workflow;
  if (guardId !== id) {
    const row = (await trx.executeQuery(statements.lockWorkflow(guardId))).rows[0] as LeaseColumns | undefined;
    if (row === undefined) throw unknownWorkflowError(guardId, operation);
    guard = row;
  }
  const epoch = Number(guard.lease_epoch);
  if (fence.epoch === epoch) return;
  throw staleFenceError(
    guardId,
    operation,
    fence.epoch,
    {
      epoch,
      ...(guard.lease_owner === null
        ? {}
        : { owner: guard.lease_owner, expiresAt: new Date(Number(guard.lease_expires_at ?? 0)) }),
    },
    id,
  );
}

/**
 * `renewWorkflow` in a write transaction: one conditional UPDATE, so only the same owner at the same epoch extends;
 * a released or re-claimed lease is never taken back.
 */
export async function renewIn(
  trx: AnyDb,
  context: LeaseContext,
  id: string,
  lease: Pick<Lease, "owner" | "epoch">,
  ttlMs: number,
): Promise<RenewedLease> {
  const expiresAt = Date.now() + Math.ceil(ttlMs);
  const renewed = (await trx.executeQuery(context.statements.renew(id, lease.owner, lease.epoch, expiresAt))).rows[0] as
    | { stop_requested: string | null }
    | undefined;
  if (renewed !== undefined) {
    const stop = decodeStop(context.serializer, id, renewed.stop_requested, "renewWorkflow");
    return {
      workflowId: id,
      owner: lease.owner,
      epoch: lease.epoch,
      expiresAt: new Date(expiresAt),
      ...(stop === undefined ? {} : { stopRequested: stop }),
    };
  }
  const d = context.layout;
  const current = (await d
    .scoped(trx)
    .selectFrom(d.names.workflows)
    .select(["lease_owner", "lease_epoch", "lease_expires_at"])
    .where("id", "=", id)
    .executeTakeFirst()) as LeaseColumns | undefined;
  if (current === undefined) throw unknownWorkflowError(id, "renewWorkflow");
  throw leaseLostError(id, lease, {
    epoch: Number(current.lease_epoch),
    ...(current.lease_owner === null
      ? {}
      : { owner: current.lease_owner, expiresAt: new Date(Number(current.lease_expires_at ?? 0)) }),
  });
}

/**
 * `requestStop` in a write transaction: locks the row, decides with `stopAction`, and either records the request
 * (the first one is kept) or ends the workflow (stopped, lease dropped, epoch + 1). `undefined` for unknown ids.
 */
export async function requestStopIn(
  trx: AnyDb,
  context: LeaseContext,
  id: string,
  info: unknown,
): Promise<WorkflowRow | undefined> {
  const d = context.layout;
  const q = d.scoped(trx);
  const current = (await q
    .selectFrom(d.names.workflows)
    .selectAll()
    .where("id", "=", id)
    .$call((query) => (d.dialect.rowLock === "" ? query : query.forNoKeyUpdate()))
    .executeTakeFirst()) as WorkflowRow | undefined;
  if (current === undefined) return undefined;
  const now = Date.now();
  const live = current.lease_owner !== null && Number(current.lease_expires_at ?? 0) > now;
  const action = stopAction(current.status, live);
  if (action === "none") return current;
  const stop = current.stop_requested ?? encodeStopRequest(context.serializer, id, info, now, "requestStop");
  return (await q
    .updateTable(d.names.workflows)
    .set(
      action === "flag"
        ? { stop_requested: stop, updated_at: now }
        : {
            stop_requested: stop,
            status: "stopped",
            lease_owner: null,
            lease_expires_at: null,
            lease_epoch: sql`lease_epoch + 1`,
            updated_at: now,
          },
    )
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow()) as WorkflowRow;
}
