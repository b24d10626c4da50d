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
import type { Program } from "./program.js";
import { firstRow } from "./program.js";
import type { WorkflowRow } from "./rows.js";
import type { HotStatements } from "./statements.js";

/** What these operations need from the store. */
export interface LeaseContext {
  readonly layout: TableLayout;
  readonly statements: HotStatements;
  readonly serializer: Serializer;
  /** Only for compiling builder queries (nothing runs on it). */
  readonly db: AnyDb;
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
export function* lockInOrder(
  statements: HotStatements,
  groups: readonly { readonly steps: readonly StepRecord[]; readonly fence?: Fence | undefined }[],
  more: readonly string[] = [],
): Program<void> {
  const ids: string[] = [...more];
  for (const group of groups) {
    ids.push(group.steps[0]!.workflowId);
    if (group.fence?.workflowId !== undefined) ids.push(group.fence.workflowId);
  }
  const lock = statements.lockInOrder(ids);
  if (lock !== undefined) yield lock;
}

/**
 * Checks the fence inside the write's transaction: against the written workflow's row (already locked), or for
 * a child guarded by its root, against the root's row, locked here so no claim can slip in before the commit.
 */
export function* checkFence(
  statements: HotStatements,
  id: string,
  workflow: LeaseColumns,
  fence: Fence | undefined,
  operation: string,
): Program<void> {
  if (fence === undefined) return;
  const guardId = fence.workflowId ?? id;
  let guard = workflow;
  if (guardId !== id) {
    const row = firstRow<LeaseColumns>(yield statements.lockWorkflow(guardId));
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
 * a released or re-claimed lease is never taken back. The stop request comes back as stored text: it is decoded
 * (by the application's serializer) with {@link renewedLease} after the transaction, so no code but the store's
 * runs while the row is locked.
 */
export function* renewIn(
  context: LeaseContext,
  id: string,
  lease: Pick<Lease, "owner" | "epoch">,
  ttlMs: number,
): Program<{ readonly expiresAt: number; readonly stopText: string | null }> {
  const expiresAt = Date.now() + Math.ceil(ttlMs);
  const renewed = firstRow<{ stop_requested: string | null }>(
    yield context.statements.renew(id, lease.owner, lease.epoch, expiresAt),
  );
  if (renewed !== undefined) return { expiresAt, stopText: renewed.stop_requested };
  const d = context.layout;
  const current = firstRow<LeaseColumns>(
    yield d
      .scoped(context.db)
      .selectFrom(d.names.workflows)
      .select(["lease_owner", "lease_epoch", "lease_expires_at"])
      .where("id", "=", id)
      .compile(),
  );
  if (current === undefined) throw unknownWorkflowError(id, "renewWorkflow");
  throw leaseLostError(id, lease, {
    epoch: Number(current.lease_epoch),
    ...(current.lease_owner === null
      ? {}
      : { owner: current.lease_owner, expiresAt: new Date(Number(current.lease_expires_at ?? 0)) }),
  });
}

/** The result of `renewWorkflow` from what {@link renewIn} returned, its stop request decoded. */
export function renewedLease(
  context: LeaseContext,
  id: string,
  lease: Pick<Lease, "owner" | "epoch">,
  renewed: { readonly expiresAt: number; readonly stopText: string | null },
): RenewedLease {
  const stop = decodeStop(context.serializer, id, renewed.stopText, "renewWorkflow");
  return {
    workflowId: id,
    owner: lease.owner,
    epoch: lease.epoch,
    expiresAt: new Date(renewed.expiresAt),
    ...(stop === undefined ? {} : { stopRequested: stop }),
  };
}

/**
 * The stop request `requestStop` may store, encoded BEFORE its transaction opens (the serializer is the
 * application's code: it must never run while the workflow row is locked). A value that cannot be stored is kept
 * as its error, thrown only when the request would be recorded.
 */
export function encodeStop(context: LeaseContext, id: string, info: unknown): () => string {
  try {
    const text = encodeStopRequest(context.serializer, id, info, Date.now(), "requestStop");
    return () => text;
  } catch (error) {
    return () => {
      throw error;
    };
  }
}

/**
 * `requestStop` in a write transaction: locks the row, decides with `stopAction`, and either records the request
 * (the first one is kept) or ends the workflow (stopped, lease dropped, epoch + 1). `undefined` for unknown ids.
 * `encoded` is the request from {@link encodeStop}.
 */
export function* requestStopIn(
  context: LeaseContext,
  id: string,
  encoded: () => string,
): Program<WorkflowRow | undefined> {
  const d = context.layout;
  const q = d.scoped(context.db);
  const current = firstRow<WorkflowRow>(
    yield q
      .selectFrom(d.names.workflows)
      .selectAll()
      .where("id", "=", id)
      .$call((query) => (d.dialect.rowLock === "" ? query : query.forNoKeyUpdate()))
      .compile(),
  );
  if (current === undefined) return undefined;
  const now = Date.now();
  const live = current.lease_owner !== null && Number(current.lease_expires_at ?? 0) > now;
  const action = stopAction(current.status, live);
  if (action === "none") return current;
  const stop = current.stop_requested ?? encoded();
  const updated = yield q
    .updateTable(d.names.workflows)
    .set(
      action === "flag"
        ? { stop_requested: stop, updated_at: now }
        : {
            stop_requested: stop,
            status: "stopped",
            // A stopped workflow is never due nor waiting.
            wake_at: null,
            waiting_event: null,
            waiting_key: null,
            lease_owner: null,
            lease_expires_at: null,
            lease_epoch: sql`lease_epoch + 1`,
            updated_at: now,
          },
    )
    .where("id", "=", id)
    .returningAll()
    .compile();
  return firstRow<WorkflowRow>(updated)!;
}
