/** Shared helpers of the storage conformance areas. */
import type { Checkpointer, ListWorkflowsOptions, StepRecord, WorkflowRecord } from "@graph/checkpoint";
import { INPUT_STEP, resolvePolicy } from "@graph/checkpoint";
import { expect } from "vitest";
import { step, withCheckpointer } from "../fixtures.js";
import type { DescribeCheckpointerOptions } from "../options.js";

export const SLOW = 60_000;

/** A checkpointer with the merged run writes, which the kit holds every backend to. */
export type MergedWrites = Checkpointer & Required<Pick<Checkpointer, "startWorkflow" | "finishWorkflow">>;

/**
 * The checkpointer as one with `startWorkflow` and `finishWorkflow`. The runtime falls back to separate calls without
 * them, but only the merged writes make a run's first and last write atomic, so the kit requires them.
 */
export function mergedWrites(checkpointer: Checkpointer): MergedWrites {
  const missing = (["startWorkflow", "finishWorkflow"] as const).filter((name) => checkpointer[name] === undefined);
  if (missing.length > 0) {
    throw new Error(
      `This checkpointer has no ${missing.join(" / ")}. The conformance kit holds every backend to the merged run ` +
        "writes: implement them (one transaction or script each, see docs/adapters.md) with the checks of " +
        "@graph/checkpoint/adapter (validateStartSteps, validateFinish, encodeWorkflowUpdate).",
    );
  }
  return checkpointer as MergedWrites;
}

export async function create(checkpointer: Checkpointer, id: string, parentId?: string): Promise<WorkflowRecord> {
  const result = await checkpointer.createWorkflow({
    id,
    graphName: "conformance",
    graphHash: "hash-1",
    ...(parentId === undefined ? {} : { parentId }),
  });
  return result.workflow;
}

/** Everything stored about some workflows (record and steps, inputs included), to compare before and after a call. */
export async function storedRecords(checkpointer: Checkpointer, workflowIds: readonly string[]) {
  return Promise.all(
    workflowIds.map(async (id) => ({
      workflow: await checkpointer.getWorkflow(id),
      steps: await checkpointer.getSteps(id, { includeInputs: true }),
    })),
  );
}

/** Walks every page of `listWorkflows` and returns the ids in page order. */
export async function listAll(
  checkpointer: Checkpointer,
  options: ListWorkflowsOptions & { readonly limit: number },
): Promise<WorkflowRecord[]> {
  const all: WorkflowRecord[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100_000; pages++) {
    const page = await checkpointer.listWorkflows({ ...options, ...(cursor === undefined ? {} : { cursor }) });
    expect(page.workflows.length).toBeLessThanOrEqual(options.limit);
    all.push(...page.workflows);
    if (page.nextCursor === undefined) return all;
    cursor = page.nextCursor;
  }
  throw new Error("listWorkflows never stopped returning nextCursor");
}

/** The retention scenario (same as the unit tests of `compactSteps`): 8 steps over supersteps 0–5. */
export function retentionHistory(workflowId: string): StepRecord[] {
  const s = (index: number, superstep: number, nodeName: string, values: Record<string, unknown>) =>
    step(workflowId, { index, superstep, nodeName, values });
  return [
    s(0, 0, INPUT_STEP, { q: "hi" }),
    s(1, 1, "A", { a: 1 }),
    s(2, 2, "B", { b: 1 }),
    s(3, 3, "A", { a: 2 }),
    s(4, 3, "G", {}),
    s(5, 4, "B", { c: 1 }),
    s(6, 5, "A", { a: 3 }),
    s(7, 5, "G", {}),
  ];
}

/** Values of every supported type, nested. */
export function richValues(): Record<string, unknown> {
  return {
    date: new Date(Date.UTC(2020, 1, 29, 12, 0, 0, 1)),
    map: new Map<unknown, unknown>([
      ["k", { nested: [1, undefined, 2n] }],
      [3, new Set(["x"])],
    ]),
    set: new Set<unknown>([1, "a", null]),
    big: 12_345_678_901_234_567_890n,
    negativeBig: -5n,
    bytes: new Uint8Array([0, 255, 1, 128]),
    missing: undefined,
    list: [null, true, "s", 1.5, undefined, [new Date(0)]],
    nested: { deep: { deeper: { text: "ünïcødé ✓ 🚀", empty: {}, none: [] } } },
    special: [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY],
    escaped: { $t: "Date", v: "not a date" },
    quote: `'"\\%_`,
  };
}

/** What every area's tests get: the adapter's options and `run`, which makes a checkpointer, runs the body, disposes. */
export interface StorageContext {
  readonly options: DescribeCheckpointerOptions;
  readonly run: <A>(
    body: (checkpointer: Checkpointer) => Promise<A>,
    policy?: Parameters<typeof resolvePolicy>[0],
  ) => Promise<A>;
}

/** Builds the context of one adapter. */
export function storageContext(options: DescribeCheckpointerOptions): StorageContext {
  return {
    options,
    run: (body, policy) =>
      withCheckpointer(options, policy === undefined ? {} : { policy: resolvePolicy(policy) }, body),
  };
}
