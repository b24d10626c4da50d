import type { StepRecord, UsageRecord } from "@graph/checkpoint";
import type { CheckpointStoreService } from "@graph/checkpoint/effect";
import type { GraphNode } from "@graph/core";
import * as Effect from "effect/Effect";
import { RunResult } from "../RunResult.js";
import { loadChildResult } from "./childResult.js";
import type { EngineHost } from "./host.js";
import { decisionToStored, type Execution, type Outcome, type RunError, toStoredError } from "./outcome.js";

/** Nested RunResults of GraphNodes that finished before this run (they are replayed, not re-run). */
export function restoreNested(
  host: EngineHost,
  store: CheckpointStoreService,
  replayed: ReadonlyArray<readonly [string, StepRecord]>,
): Effect.Effect<void, RunError> {
  const { graph, config, state } = host;
  const todo: Array<[GraphNode, StepRecord]> = [];
  for (const [name, step] of replayed) {
    const n = graph.nodes.get(name);
    if (n?.kind === "graph" && step.childWorkflowId !== undefined) todo.push([n, step]);
  }
  if (todo.length === 0) return Effect.void;
  return Effect.forEach(
    todo,
    ([n, step]) => {
      // A mapped node or a frames pipeline has no child workflow of its own: its step holds the columns.
      if (n.mapOverConfig !== undefined || n.framesConfig !== undefined) {
        const values: Record<string, unknown> = {};
        for (const [outer, v] of Object.entries(step.values)) values[n.innerOutput(outer) ?? outer] = v;
        state.nested.set(
          n.name,
          new RunResult({ status: "completed", values, workflowId: step.childWorkflowId, runId: config.runId }),
        );
        return Effect.void;
      }
      return loadChildResult(store, step.childWorkflowId!, n.graph, config.runId).pipe(
        Effect.map((r) => {
          state.nested.set(n.name, r);
        }),
      );
    },
    { discard: true },
  );
}

/** The stored record of a finished node's step (its usage: what `countUsage` counted for it). */
export function stepRecord(
  workflowId: string,
  superstep: number,
  ex: Execution,
  o: Outcome,
  usage: UsageRecord | undefined,
): StepRecord {
  const step: { -readonly [K in keyof StepRecord]: StepRecord[K] } = {
    workflowId,
    superstep,
    nodeName: ex.node.name,
    index: o.index!,
    status: o.kind,
    inputVersions: ex.versions,
    values: o.kind === "completed" ? o.outputs : {},
    truncated: o.kind === "completed" && o.truncated === true,
    startedAt: new Date(o.kind === "paused" && o.since !== undefined ? o.since : ex.startedAt),
    completedAt: new Date(),
  };
  if (o.kind === "completed" && o.decision !== undefined) step.decision = decisionToStored(o.decision);
  if (o.childWorkflowId !== undefined) step.childWorkflowId = o.childWorkflowId;
  if (o.kind === "paused") step.pause = { value: o.pause.value, responseKey: o.pause.responseKey };
  if (o.kind === "failed") step.error = toStoredError(o.error);
  if (usage !== undefined) step.usage = usage;
  if (o.attempt !== undefined) step.attempt = o.attempt;
  return step;
}
