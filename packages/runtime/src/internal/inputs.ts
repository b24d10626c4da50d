import type { WorkflowRecord } from "@graph/checkpoint";
import { Effect } from "effect";
import type { MissingInputError, UnknownValueError } from "../errors.js";
import type { EngineHost } from "./host.js";
import {
  graphLabel,
  type InputView,
  missingInputError,
  unansweredPauseError,
  unknownValueError,
} from "./inputErrors.js";
import { skippedBySuppliedOutputs } from "./readiness.js";
import { responseKeys } from "./responseKeys.js";

/**
 * Checks the caller's values before the first node: required inputs and seeds present (unless only skipped nodes
 * need them), no unknown names (an error, or a Warning when `unknownValues: "ignore"`), a pending pause answered.
 */
export function checkInputs(
  host: EngineHost,
  workflow: WorkflowRecord | undefined,
): Effect.Effect<void, MissingInputError | UnknownValueError> {
  return Effect.suspend((): Effect.Effect<void, MissingInputError | UnknownValueError> => {
    const { graph, config, state } = host;
    const spec = graph.inputs;
    const view: InputView = {
      graph,
      workflowId: config.workflowId,
      values: config.values,
      pausedAt: workflow?.pause?.nodeName,
      hasStore: config.shared.store !== undefined,
      isChild: config.isChild,
    };
    // An input only needed by nodes the caller skipped (by supplying their outputs) is not missing.
    const skipped = (name: string) => skippedBySuppliedOutputs(state, graph.nodes.get(name)!);
    const missing = [...spec.required, ...spec.seeds].filter(
      (k) => !state.values.has(k) && !(graph.analysis.consumers.get(k) ?? []).every(skipped),
    );
    const known = new Set<string>([...spec.all, ...graph.outputs, ...responseKeys(graph)]);
    const unknown = Object.keys(config.values).filter((k) => !known.has(k));
    if (missing.length > 0) return Effect.fail(missingInputError(view, missing, unknown));
    if (unknown.length === 0 || config.isChild) return Effect.void;
    const pending = workflow?.status === "paused" ? workflow.pause?.responseKey : undefined;
    const answered = pending !== undefined && Object.hasOwn(config.values, pending);
    if (pending !== undefined && !answered) return Effect.fail(unansweredPauseError(view, pending, unknown));
    if (config.unknownValues === "error") return Effect.fail(unknownValueError(view, unknown, known));
    host.event("Warning", {
      message: `Unknown input(s) ${unknown.map((k) => `'${k}'`).join(", ")} for ${graphLabel(graph)}; they are ignored. Inputs: ${[...spec.all].map((k) => `'${k}'`).join(", ") || "(none)"}.`,
      unknownInputs: unknown,
    });
    return Effect.void;
  });
}
