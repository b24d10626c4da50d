/**
 * Stored runs as regression tests: `replay` runs a stored workflow's calls again on new code, with chosen nodes
 * answering from the recording, and says what came out differently.
 *
 * @module
 */
import { type Checkpointer, MemoryCheckpointer } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import { Runner, type RunResult } from "@graph/runtime";
import { compile } from "@graph/select";
import { isReplayError, ReplayError } from "./errors.js";
import { mockGraph, Recorded } from "./internal/mockGraph.js";
import {
  type DecisionDiff,
  diffDecisions,
  diffValues,
  readRecordedRun,
  type ValueDiff,
} from "./internal/recordings.js";

export type { DecisionDiff, ValueDiff };

/**
 * Options of {@link replay}.
 *
 * @example
 * ```ts
 * import type { ReplayOptions } from "@graph/upgrade";
 * const options: ReplayOptions = { mock: ["llm*", "executor/search"], ignore: ["**\/timestamp"] };
 * ```
 */
export interface ReplayOptions {
  /**
   * Function nodes that answer from the recording instead of running: names or `@graph/select` patterns over node
   * paths (`agent`, `llm*`, `executor/agent`, `**\/search`). The k-th call of a node returns its k-th recorded output.
   */
  readonly mock?: string | readonly string[];
  /** Value paths left out of the comparison (`@graph/select` patterns), e.g. timestamps. */
  readonly ignore?: string | readonly string[];
}

/**
 * What {@link replay} found. `same` is true when no value and no decision differs.
 *
 * @example
 * ```ts
 * import type { ReplayResult } from "@graph/upgrade";
 * const changedPaths = (r: ReplayResult) => r.diff.values.map((d) => d.path);
 * ```
 */
export interface ReplayResult {
  readonly same: boolean;
  readonly diff: { readonly values: readonly ValueDiff[]; readonly decisions: readonly DecisionDiff[] };
  /** The replay's last result (the status the new code reached with the stored calls). */
  readonly result: RunResult;
  /** Per mocked node path: outputs recorded, and how many the replay used. */
  readonly mocked: Readonly<Record<string, { readonly recorded: number; readonly used: number }>>;
}

/** Every gate path of `graph` (nested graphs included). */
function gatePaths(graph: Graph, prefix = "", into = new Set<string>()): Set<string> {
  for (const node of graph.nodes.values()) {
    if (node.kind === "gate") into.add(`${prefix}${node.name}`);
    else if (node.kind === "graph") gatePaths(node.graph, `${prefix}${node.name}/`, into);
  }
  return into;
}

/**
 * Runs the stored workflow `workflowId` again on `graph`: the same calls (its first values, then each answer it
 * was given, in order) on a fresh in-memory store, with the `mock`ed nodes returning their recorded outputs. Then
 * compares final values (nested graphs' under their node's path) and every gate's decisions with the stored run.
 * The stored workflow is only read.
 *
 * @example
 * ```ts
 * import { replay } from "@graph/upgrade";
 * const { same, diff } = await replay(checkpointer, "pe-2026-11-25-17", planAndExecuteV2, { mock: ["**\/agent"] });
 * if (!same) console.log(diff.values, diff.decisions);
 * ```
 */
export async function replay(
  checkpointer: Checkpointer,
  workflowId: string,
  graph: Graph,
  options: ReplayOptions = {},
): Promise<ReplayResult> {
  const stored = await checkpointer.getWorkflow(workflowId);
  if (stored === undefined)
    throw new ReplayError(
      `replay: no stored workflow '${workflowId}'. Pass the id of a workflow in this checkpointer.`,
    );
  const gates = gatePaths(graph);
  const isGate = (path: string) => gates.has(path);
  const before = await readRecordedRun(checkpointer, workflowId, isGate);
  const recorded = new Recorded(before.outputs);
  const mocks = compile(options.mock ?? []);
  const mocked = mockGraph(graph, mocks, recorded);

  const store = new MemoryCheckpointer();
  const runner = new Runner({ checkpointer: store });
  let result: RunResult | undefined;
  try {
    for (const values of before.inputs) {
      result = await runner.run(mocked, { workflowId: "replay", values, errorHandling: "continue" });
      if (result.status === "failed") break;
    }
    // A mock that ran out of recordings is a replay problem, not a difference of the new code: say so.
    const cause = (result?.error as { cause?: unknown } | undefined)?.cause;
    if (isReplayError(cause)) throw cause;
    if (result === undefined) throw new ReplayError(`replay: workflow '${workflowId}' has no stored inputs to replay.`);
    const after = await readRecordedRun(store, "replay", isGate);
    const ignore = options.ignore === undefined ? undefined : compile(options.ignore);
    const keep = (values: ReadonlyMap<string, unknown>) =>
      new Map([...values].filter(([path]) => ignore?.matches(path) !== true));
    const diff = {
      values: diffValues(keep(before.values), keep(after.values)),
      decisions: diffDecisions(before.decisions, after.decisions),
    };
    const usage: Record<string, { recorded: number; used: number }> = {};
    for (const path of before.outputs.keys())
      if (mocks.matches(path)) usage[path] = { recorded: recorded.available(path), used: recorded.used.get(path) ?? 0 };
    return { same: diff.values.length === 0 && diff.decisions.length === 0, diff, result, mocked: usage };
  } finally {
    await runner.close();
  }
}
