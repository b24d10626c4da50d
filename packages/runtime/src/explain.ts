/**
 * `explain(result)`: why each node of a finished run ran or was skipped.
 *
 * @module
 */
import type { Graph } from "@graph/core";
import { InvalidOptionError } from "./errors.js";
import type { RunRecord, WorkflowActivity } from "./internal/explainRecord.js";
import type { RunResult } from "./RunResult.js";

/** Why a node ran or did not, in one run. */
export type ExplainReason =
  /** It ran, and had never run in this workflow before. */
  | "first run"
  /** It ran again: an input it reads changed since its last run (in an earlier run or an earlier loop turn). */
  | "inputs changed"
  /** Its outputs came from the node cache: its function was not called. */
  | "cache hit"
  /**
   * The caller supplied all of its outputs, so it never needed to run (`detail` says when they were supplied in an
   * earlier run of the workflow: a producer that never ran stays skipped while its supplied outputs stand).
   */
  | "supplied value"
  /** A gate that controls it decided for other targets (`detail` says which). */
  | "gate not taken"
  /** It ran in an earlier run of this workflow and none of its inputs changed since. */
  | "not stale"
  /** Never ready: an input was never produced (an upstream node did not run), or the run ended first. */
  | "not reached"
  | "failed"
  | "stopped"
  | "paused";

/** One node's line of {@link explain}. */
export interface NodeExplanation {
  /** The node's name, prefixed by the GraphNodes it is nested in (`"rag/retrieve"`; `"embed/2/call"` for an item). */
  readonly path: string;
  /** `ran`: its function was called; `cached`: a cache hit; `skipped`: not run in this run. */
  readonly status: "ran" | "cached" | "skipped" | "failed" | "stopped" | "paused";
  readonly reason: ExplainReason;
  /** How many times its function ran in this run (loops run a node several times). */
  readonly runs: number;
  /** More about the reason: the gate's choice for "gate not taken", an earlier run for "supplied value". */
  readonly detail?: string;
}

const records = new WeakMap<object, { readonly graph: Graph; readonly record: RunRecord; readonly root: string }>();

/** @internal Attaches a run's record to its result (runs with `{ explain: true }` only). */
export function keepExplanation(result: RunResult, graph: Graph, record: RunRecord): RunResult {
  records.set(result, { graph, record, root: result.workflowId ?? "" });
  return result;
}

/**
 * Why every node of a finished run (nested ones too) ran or was skipped: first run, inputs changed, cache hit,
 * supplied value, gate not taken, not stale, not reached, failed, stopped, paused. The run must have been started
 * with `{ explain: true }` (only those runs keep the record; others pay nothing).
 *
 * @example
 * ```ts
 * import { Graph, node } from "@graph/core";
 * import { explain, Runner } from "@graph/runtime";
 * const g = new Graph([node({ name: "inc", output: "y" }, ({ x }: { x: number }) => x + 1)]);
 * const result = await new Runner().run(g, { values: { x: 1 }, explain: true });
 * for (const line of explain(result)) console.log(line.path, line.status, line.reason);
 * ```
 */
export function explain(result: RunResult): readonly NodeExplanation[] {
  const kept = records.get(result);
  if (kept === undefined)
    throw new InvalidOptionError(
      "explain(result): this result has no explanation record.\n  How to fix: run with { explain: true }, e.g. runner.run(graph, { values, explain: true }).",
      "explain",
    );
  const out: NodeExplanation[] = [];
  walk(kept.graph, kept.root, "", kept.record, true, out);
  return out;
}

function walk(
  graph: Graph,
  workflowId: string,
  prefix: string,
  record: RunRecord,
  root: boolean,
  out: NodeExplanation[],
) {
  const w: WorkflowActivity = record.workflows.get(workflowId) ?? {
    nodes: new Map(),
    decisions: new Map(),
    restored: new Map(),
    ranBefore: new Set(),
  };
  for (const node of graph.nodes.values()) {
    out.push({
      path: prefix + node.name,
      ...why(graph, node.name, node.outputs, w, root ? record.supplied : undefined),
    });
    if (node.kind !== "graph") continue;
    const child = `${workflowId}/${node.name}`;
    if (node.mapOverConfig === undefined) {
      if (record.workflows.has(child)) walk(node.graph, child, `${prefix}${node.name}/`, record, false, out);
      continue;
    }
    for (let i = 0; record.workflows.has(`${child}/${i}`); i++)
      walk(node.graph, `${child}/${i}`, `${prefix}${node.name}/${i}/`, record, false, out);
  }
}

function why(
  graph: Graph,
  name: string,
  outputs: readonly string[],
  w: WorkflowActivity,
  supplied: ReadonlySet<string> | undefined,
): Omit<NodeExplanation, "path"> {
  const a = w.nodes.get(name);
  const runs = a?.ran ?? 0;
  if (a?.failed) return { status: "failed", reason: "failed", runs };
  if (a?.stopped) return { status: "stopped", reason: "stopped", runs };
  if (a?.paused) return { status: "paused", reason: "paused", runs };
  if (runs > 0)
    return { status: "ran", reason: runs > 1 || w.ranBefore.has(name) ? "inputs changed" : "first run", runs };
  if ((a?.cached ?? 0) > 0) return { status: "cached", reason: "cache hit", runs };
  if ((a?.replayed ?? 0) > 0) return { status: "skipped", reason: "not stale", runs };
  for (const [gate, chosen] of w.decisions) {
    const targets = gateTargets(graph, gate);
    if (targets.includes(name) && !chosen.includes(name))
      return {
        status: "skipped",
        reason: "gate not taken",
        runs,
        detail: `${gate} chose ${chosen.length === 0 ? "nothing" : chosen.join(", ")}`,
      };
  }
  if (w.ranBefore.has(name)) return { status: "skipped", reason: "not stale", runs };
  if (supplied !== undefined && outputs.length > 0 && outputs.every((o) => supplied.has(o)))
    return { status: "skipped", reason: "supplied value", runs };
  // Supplied in an earlier run of the workflow: the stored value still stands for the node's outputs.
  const before = w.suppliedBefore;
  if (supplied !== undefined && before !== undefined && outputs.length > 0)
    if (outputs.every((o) => supplied.has(o) || before.has(o)))
      return {
        status: "skipped",
        reason: "supplied value",
        runs,
        detail: "supplied in an earlier run of this workflow",
      };
  return { status: "skipped", reason: "not reached", runs };
}

function gateTargets(graph: Graph, gate: string): readonly string[] {
  const node = graph.nodes.get(gate);
  if (node === undefined || node.kind !== "gate") return [];
  return node.targets.map((t) => (typeof t === "symbol" ? "END" : String(t)));
}
