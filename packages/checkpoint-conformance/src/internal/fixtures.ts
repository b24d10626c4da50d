import type { Checkpointer, CheckpointPolicy, StepRecord } from "@graph/checkpoint";
import { isCheckpointError, isWorkflowConflictError } from "@graph/checkpoint";
import type { CreateCheckpointerOptions, DescribeCheckpointerOptions } from "./options.js";

let counter = 0;

/** A prefix unique to this suite run, so suites sharing one database never see each other's workflows. */
const RUN_PREFIX = `cf-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** A fresh workflow id namespace for one test. */
export function ids(label: string): (name?: string) => string {
  const base = `${RUN_PREFIX}-${++counter}-${label}`;
  return (name) => (name === undefined ? base : `${base}-${name}`);
}

/** Creates a checkpointer through the factory, sets it up, runs `body`, and always disposes of it. */
export async function withCheckpointer<A>(
  options: DescribeCheckpointerOptions,
  create: CreateCheckpointerOptions,
  body: (checkpointer: Checkpointer) => Promise<A>,
): Promise<A> {
  const checkpointer = await options.create(create);
  try {
    if (create.policy !== undefined) assertPolicy(checkpointer, create.policy);
    await checkpointer.setup();
    return await body(checkpointer);
  } finally {
    await (options.destroy === undefined ? checkpointer.close() : options.destroy(checkpointer));
  }
}

function assertPolicy(checkpointer: Checkpointer, policy: CheckpointPolicy): void {
  const actual = checkpointer.policy;
  if (
    actual === undefined ||
    actual.retention !== policy.retention ||
    actual.window !== policy.window ||
    actual.ttlMs !== policy.ttlMs
  ) {
    throw new Error(
      `The conformance factory ignored options.policy: asked for ${JSON.stringify(policy)}, the checkpointer has ` +
        `${JSON.stringify(actual)}. Pass it through, e.g. create: (options) => new MyCheckpointer({ ...options }).`,
    );
  }
}

const FIXED_TIME = Date.UTC(2024, 0, 2, 3, 4, 5, 678);

/** A well-formed step with trivial defaults. */
export function step(
  workflowId: string,
  fields: Partial<StepRecord> & Pick<StepRecord, "superstep" | "nodeName" | "index">,
): StepRecord {
  return {
    workflowId,
    status: "completed",
    inputVersions: {},
    values: {},
    truncated: false,
    startedAt: new Date(FIXED_TIME + fields.index * 10),
    completedAt: new Date(FIXED_TIME + fields.index * 10 + 5),
    ...fields,
  };
}

/** Awaits a rejection and returns the error (fails the test when the promise resolves). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the operation to be rejected, but it resolved");
}

/** Asserts a `CheckpointError` by tag and brand. */
export function assertCheckpointError(error: unknown): asserts error is import("@graph/checkpoint").CheckpointError {
  if (!isCheckpointError(error)) {
    throw new Error(`expected a CheckpointError, got ${describe(error)}`);
  }
}

/** Asserts a `WorkflowConflictError` by tag and brand. */
export function assertConflictError(
  error: unknown,
): asserts error is import("@graph/checkpoint").WorkflowConflictError {
  if (!isWorkflowConflictError(error)) {
    throw new Error(`expected a WorkflowConflictError, got ${describe(error)}`);
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${(error as { _tag?: string })._tag ?? error.name}: ${error.message}`;
  return String(error);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
