/**
 * The guard that protects callers from adapter bugs: `setup()` runs once, `close()` runs once, and every
 * rejection comes out as a `CheckpointError` or `WorkflowConflictError`.
 *
 * @module
 */
import type {
  Checkpointer,
  Fence,
  LeaseClaim,
  NewWorkflow,
  StepGroup,
  StepRecord,
  WorkflowFinish,
} from "./Checkpointer.js";
import type { WorkflowConflictError } from "./errors.js";
import { CheckpointError, isCheckpointError, isWorkflowConflictError } from "./errors.js";
import { MAX_WORKFLOW_ID_BYTES, workflowIdTooLong } from "./state.js";

/**
 * The errors a guarded checkpointer (and the Effect `CheckpointStore`) fails with.
 *
 * @example
 * ```ts
 * function describe(error: CheckpointStoreError): string {
 *   return error._tag === "WorkflowConflictError" ? `held by ${error.heldBy}` : error.message;
 * }
 * ```
 */
export type CheckpointStoreError = CheckpointError | WorkflowConflictError;

/**
 * Classifies anything an adapter threw: `CheckpointError` and `WorkflowConflictError` pass through unchanged;
 * anything else becomes a `CheckpointError` with `operation`, `workflowId` and the original as `cause`.
 *
 * @example
 * ```ts
 * try {
 *   await adapter.saveStep(step);
 * } catch (e) {
 *   throw classifyCheckpointerError(e, "saveStep", step.workflowId);
 * }
 * ```
 */
export function classifyCheckpointerError(
  error: unknown,
  operation: string,
  workflowId?: string,
): CheckpointStoreError {
  if (isCheckpointError(error) || isWorkflowConflictError(error)) return error;
  const detail =
    error instanceof Error ? `${error.name}: ${error.message}` : `a non-Error value (${safeString(error)})`;
  const where = workflowId === undefined ? "" : ` for workflow '${workflowId}'`;
  return new CheckpointError({
    message:
      `Checkpointer operation ${operation} failed${where}: ${detail}. ` +
      "Check that the storage backend is reachable and healthy (connection, permissions, disk space); " +
      "the cause holds the original error.",
    operation,
    ...(workflowId === undefined ? {} : { workflowId }),
    cause: error,
  });
}

function safeString(value: unknown): string {
  try {
    return typeof value === "string" ? JSON.stringify(value) : String(value);
  } catch {
    return typeof value;
  }
}

/**
 * A guarded checkpointer: the same contract plus a `closed` flag.
 *
 * @example
 * ```ts
 * const guarded: GuardedCheckpointer = guardCheckpointer(adapter);
 * if (!guarded.closed) await guarded.close();
 * ```
 */
export interface GuardedCheckpointer extends Checkpointer {
  /** The adapter being guarded. */
  readonly adapter: Checkpointer;
  /** True once `close()` was called. */
  readonly closed: boolean;
}

/**
 * Wraps any adapter so that:
 * - `setup()` runs once, shared by concurrent callers, and automatically before the first other operation
 *   (a failed setup is retried by the next caller);
 * - `close()` runs once; later calls of other methods fail with `CheckpointError`;
 * - every failure (including synchronous throws and non-Error rejections) is a `CheckpointError` or a
 *   `WorkflowConflictError` (see {@link classifyCheckpointerError}).
 *
 * Guarding a guarded checkpointer returns it unchanged.
 *
 * @example
 * ```ts
 * import { guardCheckpointer, MemoryCheckpointer } from "@graph/checkpoint";
 * const checkpointer = guardCheckpointer(new MemoryCheckpointer());
 * await Promise.all([checkpointer.setup(), checkpointer.setup()]); // adapter.setup() runs once
 * ```
 */
export function guardCheckpointer(adapter: Checkpointer): GuardedCheckpointer {
  if (guarded.has(adapter)) return adapter as GuardedCheckpointer;
  let setupPromise: Promise<void> | undefined;
  let closePromise: Promise<void> | undefined;

  const invoke = async <A>(operation: string, workflowId: string | undefined, run: () => Promise<A>): Promise<A> => {
    try {
      return await run();
    } catch (error) {
      throw classifyCheckpointerError(error, operation, workflowId);
    }
  };

  const setup = (): Promise<void> => {
    if (closePromise !== undefined) return Promise.reject(closedError("setup"));
    setupPromise ??= invoke("setup", undefined, () => adapter.setup()).then(
      () => {
        ready = true;
      },
      (error: unknown) => {
        setupPromise = undefined;
        throw error;
      },
    );
    return setupPromise;
  };
  /** Set once setup succeeded: later calls skip waiting for it (one promise less per call). */
  let ready = false;

  const call = async <A>(operation: string, workflowId: string | undefined, run: () => Promise<A>): Promise<A> => {
    if (closePromise !== undefined) throw closedError(operation, workflowId);
    if (!ready) await setup();
    return invoke(operation, workflowId, run);
  };

  const result: GuardedCheckpointer = {
    adapter,
    get closed() {
      return closePromise !== undefined;
    },
    ...(adapter.policy === undefined ? {} : { policy: adapter.policy }),
    ...(adapter.serializer === undefined ? {} : { serializer: adapter.serializer }),
    setup,
    createWorkflow: (workflow, fence) =>
      checkIdLength("createWorkflow", workflowIdOf(workflow)) ??
      call("createWorkflow", workflowIdOf(workflow), () =>
        fence === undefined ? adapter.createWorkflow(workflow) : adapter.createWorkflow(workflow, fence),
      ),
    claimWorkflow: (id, options) =>
      checkIdLength("claimWorkflow", id) ?? call("claimWorkflow", id, () => adapter.claimWorkflow(id, options)),
    releaseWorkflow: (id, lease) => call("releaseWorkflow", id, () => adapter.releaseWorkflow(id, lease)),
    renewWorkflow: (id, lease, options) =>
      call("renewWorkflow", id, () => required(adapter, "renewWorkflow").call(adapter, id, lease, options)),
    requestStop: (id, options) =>
      call("requestStop", id, () =>
        options === undefined
          ? required(adapter, "requestStop").call(adapter, id)
          : required(adapter, "requestStop").call(adapter, id, options),
      ),
    getStopRequest: (id) => call("getStopRequest", id, () => required(adapter, "getStopRequest").call(adapter, id)),
    saveStep: (step, fence) =>
      call("saveStep", workflowIdOf(step), () =>
        fence === undefined ? adapter.saveStep(step) : adapter.saveStep(step, fence),
      ),
    ...(adapter.saveSteps === undefined
      ? {}
      : {
          saveSteps: (steps: readonly StepRecord[], fence?: Fence) =>
            call("saveSteps", steps[0]?.workflowId, () =>
              fence === undefined ? adapter.saveSteps!(steps) : adapter.saveSteps!(steps, fence),
            ),
        }),
    ...(adapter.saveStepBatch === undefined
      ? {}
      : {
          saveStepBatch: (groups: readonly StepGroup[]) =>
            call("saveStepBatch", groups[0]?.steps[0]?.workflowId, () => adapter.saveStepBatch!(groups)),
        }),
    ...(adapter.startWorkflow === undefined
      ? {}
      : {
          startWorkflow: (workflow: NewWorkflow, claim: LeaseClaim, steps?: readonly StepRecord[]) =>
            checkIdLength("startWorkflow", workflowIdOf(workflow)) ??
            call("startWorkflow", workflowIdOf(workflow), () =>
              steps === undefined
                ? adapter.startWorkflow!(workflow, claim)
                : adapter.startWorkflow!(workflow, claim, steps),
            ),
        }),
    ...(adapter.finishWorkflow === undefined
      ? {}
      : {
          finishWorkflow: (finish: WorkflowFinish) =>
            call("finishWorkflow", finish?.workflowId, () => adapter.finishWorkflow!(finish)),
        }),
    updateWorkflow: (id, update, fence) =>
      call("updateWorkflow", id, () =>
        fence === undefined ? adapter.updateWorkflow(id, update) : adapter.updateWorkflow(id, update, fence),
      ),
    getWorkflow: (id) => call("getWorkflow", id, () => adapter.getWorkflow(id)),
    getSteps: (id, options) =>
      call("getSteps", id, () => (options === undefined ? adapter.getSteps(id) : adapter.getSteps(id, options))),
    getState: (id, options) =>
      call("getState", id, () => (options === undefined ? adapter.getState(id) : adapter.getState(id, options))),
    getCheckpoint: (id, options) =>
      call("getCheckpoint", id, () =>
        options === undefined ? adapter.getCheckpoint(id) : adapter.getCheckpoint(id, options),
      ),
    listWorkflows: (options) =>
      call("listWorkflows", undefined, () =>
        options === undefined ? adapter.listWorkflows() : adapter.listWorkflows(options),
      ),
    ...timeQueries(adapter, call),
    deleteWorkflow: (id) => call("deleteWorkflow", id, () => adapter.deleteWorkflow(id)),
    close: () => {
      closePromise ??= invoke("close", undefined, () => adapter.close());
      return closePromise;
    },
  };
  guarded.add(result);
  return result;
}

const guarded = new WeakSet<object>();

/** `listDue`, `nextDue` and `listWaiting`, forwarded when the adapter has them (optional in the contract). */
function timeQueries(
  adapter: Checkpointer,
  call: <A>(operation: string, workflowId: string | undefined, run: () => Promise<A>) => Promise<A>,
): Pick<Checkpointer, "listDue" | "nextDue" | "listWaiting"> {
  const { listDue, nextDue, listWaiting } = adapter;
  return {
    ...(listDue === undefined
      ? {}
      : { listDue: (options) => call("listDue", undefined, () => listDue.call(adapter, options)) }),
    ...(nextDue === undefined ? {} : { nextDue: () => call("nextDue", undefined, () => nextDue.call(adapter)) }),
    ...(listWaiting === undefined
      ? {}
      : {
          listWaiting: (wait, options) =>
            call("listWaiting", undefined, () =>
              options === undefined ? listWaiting.call(adapter, wait) : listWaiting.call(adapter, wait, options),
            ),
        }),
  };
}

/** A method an adapter written for an older contract may lack: a clear error instead of "is not a function". */
function required<K extends "renewWorkflow" | "requestStop" | "getStopRequest">(
  adapter: Checkpointer,
  method: K,
): Checkpointer[K] {
  const fn = adapter[method];
  if (typeof fn === "function") return fn;
  throw new CheckpointError({
    message:
      `The checkpointer adapter has no ${method}() (it was written for an older @graph/checkpoint contract). ` +
      "Upgrade the adapter package; custom adapters must implement renewWorkflow, requestStop and getStopRequest " +
      "and pass @graph/checkpoint-conformance.",
    operation: method,
  });
}

function workflowIdOf(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as { id?: unknown; workflowId?: unknown };
  const id = record.workflowId ?? record.id;
  return typeof id === "string" ? id : undefined;
}

/**
 * Rejects ids over {@link MAX_WORKFLOW_ID_BYTES} before any backend sees them (PostgreSQL would fail with an index
 * error that reads like a connection problem).
 */
function checkIdLength(operation: string, id: string | undefined): Promise<never> | undefined {
  const tooLong = typeof id === "string" ? workflowIdTooLong(id) : undefined;
  if (tooLong === undefined) return undefined;
  return Promise.reject(
    new CheckpointError({ message: `${tooLong} (in ${operation})`, operation, path: "workflowId" }),
  );
}

function closedError(operation: string, workflowId?: string): CheckpointError {
  return new CheckpointError({
    message: `Checkpointer operation ${operation} was called after close(). Create a new checkpointer (or runner) instead.`,
    operation,
    ...(workflowId === undefined ? {} : { workflowId }),
  });
}
