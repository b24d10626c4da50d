/**
 * Writing steps inside a write transaction: validation and serialisation first (nothing is written when a value
 * cannot be stored), then per workflow the fence check, the upserts, the counters and the retention policy.
 */
import type { Fence, StepRecord } from "../../Checkpointer.js";
import type { CheckpointPolicy } from "../../CheckpointPolicy.js";
import type { Serializer } from "../../Serializer.js";
import { compactSteps } from "../../state.js";
import { validateStepGroup } from "../inputs.js";
import { unknownWorkflowError } from "../leases.js";
import type { BulkStatements } from "./bulkStatements.js";
import { ROWS_PER_STATEMENT } from "./bulkStatements.js";
import type { AnyDb, TableLayout } from "./layout.js";
import { checkFence } from "./leases.js";
import type { Program } from "./program.js";
import { firstRow } from "./program.js";
import type { StepRow, StepSummaryRow, WorkflowRow } from "./rows.js";
import { decodeSummary, encodeStep } from "./rows.js";
import type { StoreSession } from "./session.js";
import type { HotStatements } from "./statements.js";

/** Steps of one workflow, their encoded rows and the fence they are written under. */
export interface EncodedGroup {
  readonly steps: readonly StepRecord[];
  readonly rows: readonly StepRow[];
  readonly fence: Fence | undefined;
}

/** What step writes need from the store. */
export interface StepContext {
  readonly layout: TableLayout;
  readonly statements: HotStatements;
  readonly bulk: BulkStatements;
  readonly policy: CheckpointPolicy;
  /** Only for compiling builder queries (nothing runs on it). */
  readonly db: AnyDb;
}

/** The workflow's counters after a group was written. */
export interface Counters {
  readonly lastSuperstep: number;
  readonly stepCount: number;
}

type LockedRow = Pick<
  WorkflowRow,
  "lease_epoch" | "lease_owner" | "lease_expires_at" | "last_superstep" | "step_count"
> & { existing?: unknown };

/** Validates one workflow's steps and serialises them, before any transaction opens. */
export function encodeGroup(
  steps: readonly StepRecord[],
  fence: Fence | undefined,
  operation: string,
  serializer: Serializer,
): EncodedGroup {
  validateStepGroup(steps, fence, operation);
  return { steps, rows: steps.map((step) => encodeStep(step, serializer, operation)), fence };
}

/**
 * Writes one workflow's encoded steps: fence check, upserts, counters, retention. With `deferCounters` the
 * counters are returned instead of written (the caller's next statement sets them).
 */
export function* saveGroup(
  context: StepContext,
  group: EncodedGroup,
  operation: string,
  deferCounters = false,
): Program<Counters> {
  const keys = new Set(group.steps.map((step) => `${step.superstep}\u0000${step.nodeName}`));
  // One statement for all rows needs distinct keys and no retention pass between the rows.
  if (context.policy.retention === "full" && context.bulk.multiRow && keys.size === group.steps.length) {
    return yield* saveBulk(context, group, operation, deferCounters);
  }
  return yield* saveOneByOne(context, group, operation);
}

/**
 * Whether one workflow's write takes the short path of {@link writeSingleStep}: one step, the whole history kept (no
 * retention pass), the standard upsert, and no fence or one on the workflow itself (a child guarded by its root
 * locks the root's row as well: the full path).
 */
export function isSingleStep(context: StepContext, group: EncodedGroup): boolean {
  const fenceId = group.fence?.workflowId;
  return (
    group.steps.length === 1 &&
    context.policy.retention === "full" &&
    context.bulk.multiRow &&
    (fenceId === undefined || fenceId === group.steps[0]!.workflowId)
  );
}

/**
 * One step in one statement plus the upsert where needed: the whole write as one statement (`writableCte`), or,
 * where reads in a write transaction see every committed row, one UPDATE that checks the fence in its WHERE clause
 * and moves the counters, then the upsert. When that statement matched no row (nothing was written: an unknown
 * workflow or a stale fence), the full path runs in the same transaction and throws the error that says which.
 */
function* saveSingle(context: StepContext, group: EncodedGroup, operation: string): Program<void> {
  const { statements } = context;
  const row = group.rows[0]!;
  const epoch = group.fence?.epoch;
  const now = Date.now();
  const whole = statements.singleStep(row, epoch, now);
  const written = yield whole ?? statements.stepCounters(row, epoch, now);
  if (written.rows.length === 0) {
    yield* saveGroup(context, group, operation);
    return;
  }
  if (whole === undefined) yield statements.upsertStep(row);
}

/**
 * Writes a group {@link isSingleStep} accepted with the fewest statements the dialect allows (see `saveSingle`),
 * in a write transaction: a connection lost on the way fails the call as before (a single autocommitted statement
 * could not tell a connection dead before it was sent from one killed while it ran). Resolves to false, having
 * done nothing, when the dialect allows neither form: the caller then runs the full path.
 */
export async function writeSingleStep(
  session: StoreSession,
  context: StepContext,
  group: EncodedGroup,
  operation: string,
): Promise<boolean> {
  if (context.layout.dialect.readsBeforeLockWait && !context.statements.hasSingleStep) return false;
  await session.transact(() => saveSingle(context, group, operation));
  return true;
}

function* saveBulk(
  context: StepContext,
  group: EncodedGroup,
  operation: string,
  deferCounters: boolean,
): Program<Counters> {
  const { statements, bulk } = context;
  const id = group.steps[0]!.workflowId;
  const workflow = firstRow<LockedRow>(yield statements.lockCounters(id));
  if (workflow === undefined) throw unknownWorkflowError(id, operation);
  yield* checkFence(statements, id, workflow, group.fence, operation);
  let stepCount = Number(workflow.step_count);
  let lastSuperstep = Number(workflow.last_superstep);
  for (let start = 0; start < group.steps.length; start += ROWS_PER_STATEMENT) {
    const steps = group.steps.slice(start, start + ROWS_PER_STATEMENT);
    const rows = group.rows.slice(start, start + ROWS_PER_STATEMENT);
    if (context.layout.dialect.insertedExpression === undefined) {
      const existing = (yield bulk.existingSteps(id, steps)).rows.length;
      yield bulk.upsertSteps(rows);
      stepCount += steps.length - existing;
    } else {
      const upserted = (yield bulk.upsertSteps(rows)).rows as { inserted: boolean }[];
      for (const row of upserted) if (row.inserted) stepCount++;
    }
    for (const step of steps) lastSuperstep = Math.max(lastSuperstep, step.superstep);
  }
  if (!deferCounters) yield statements.afterStep(id, lastSuperstep, stepCount, Date.now());
  return { lastSuperstep, stepCount };
}

function* saveOneByOne(context: StepContext, group: EncodedGroup, operation: string): Program<Counters> {
  const { layout: d, statements, policy } = context;
  const { steps, rows, fence } = group;
  const id = steps[0]!.workflowId;
  const q = d.scoped(context.db);
  let stepCount = 0;
  let lastSuperstep = -1;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const workflow = firstRow<LockedRow>(yield statements.lockForStep(id, step.superstep, step.nodeName));
    if (workflow === undefined) throw unknownWorkflowError(id, operation);
    if (i === 0) {
      yield* checkFence(statements, id, workflow, fence, operation);
      stepCount = Number(workflow.step_count);
      lastSuperstep = Number(workflow.last_superstep);
    }
    const existence = statements.stepExists(id, step.superstep, step.nodeName);
    const found = existence === undefined ? workflow.existing : (yield existence).rows[0];
    yield statements.upsertStep(rows[i]!);
    stepCount += found === null || found === undefined ? 1 : 0;
    lastSuperstep = Math.max(lastSuperstep, step.superstep);
    if (policy.retention !== "full") {
      const summaries = (
        (yield q
          .selectFrom(d.names.steps)
          .select(["superstep", "node_name", "idx", "value_keys"])
          .where("workflow_id", "=", id)
          .compile()).rows as StepSummaryRow[]
      ).map((summary) => decodeSummary(summary, id));
      for (const doomed of compactSteps(summaries, policy)) {
        const deleted = yield q
          .deleteFrom(d.names.steps)
          .where("workflow_id", "=", id)
          .where("superstep", "=", doomed.superstep)
          .where("node_name", "=", doomed.nodeName)
          .compile();
        stepCount -= Number(deleted.numAffectedRows ?? 0n);
      }
    }
    // Later steps of the batch read the counters through the same row; keep it current.
    if (i === steps.length - 1 || policy.retention !== "full") {
      yield statements.afterStep(id, lastSuperstep, stepCount, Date.now());
    }
  }
  return { lastSuperstep, stepCount };
}
