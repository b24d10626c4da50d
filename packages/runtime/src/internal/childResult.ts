import { INPUT_STEP } from "@graph/checkpoint";
import type { CheckpointStoreService } from "@graph/checkpoint/effect";
import type { Graph, GraphNode } from "@graph/core";
import * as Effect from "effect/Effect";
import { RunResult, type RunStatus } from "../RunResult.js";
import type { RunError } from "./outcome.js";

/** Rebuilds a finished child run's RunResult from storage (its produced values and its own nested results). */
export function loadChildResult(
  store: CheckpointStoreService,
  workflowId: string,
  graph: Graph,
  runId: string,
): Effect.Effect<RunResult, RunError> {
  return Effect.all([store.getWorkflow(workflowId), store.getSteps(workflowId)]).pipe(
    Effect.flatMap(([workflow, steps]) => {
      const values: Record<string, unknown> = {};
      const children: Array<[GraphNode, string]> = [];
      for (const s of [...steps].sort((a, b) => a.index - b.index)) {
        if (s.nodeName === INPUT_STEP) continue;
        Object.assign(values, s.values);
        const n = graph.nodes.get(s.nodeName);
        if (n?.kind === "graph" && s.childWorkflowId !== undefined && s.status === "completed")
          children.push([n, s.childWorkflowId]);
      }
      const status: RunStatus =
        workflow?.status === "running" || workflow === undefined ? "completed" : workflow.status;
      return Effect.forEach(children, ([n, id]) =>
        n.mapOverConfig !== undefined || n.framesConfig !== undefined
          ? Effect.succeed(undefined)
          : loadChildResult(store, id, n.graph, runId).pipe(
              Effect.tap((r) => {
                values[n.name] = r;
              }),
              Effect.asVoid,
            ),
      ).pipe(Effect.map(() => new RunResult({ status, values, workflowId, runId })));
    }),
  );
}
