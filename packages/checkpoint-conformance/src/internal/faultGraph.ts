/**
 * The workflow of the service-fault tests (`serviceFaults.ts`): `prepare` → `wait` → `combine` → `report`, with a
 * Date and a Map in its values. `wait` calls `hold()` and awaits it: the test injects the fault meanwhile, so the
 * first write after it (the step of `wait`) meets the failed service.
 */
import type { Graph } from "@graph/core";
import { Graph as GraphClass, node } from "@graph/core";
import type { Recorder } from "./engineGraph.js";
import { asyncTrampoline, trampoline } from "./engineGraph.js";

/** The run's values (given once; the resume passes none). */
export const FAULT_VALUES: Readonly<Record<string, unknown>> = {
  topic: "faults",
  at: new Date(Date.UTC(2025, 5, 6, 7, 8, 9)),
};

/** How often each node runs in a clean run. */
export const FAULT_EXECUTIONS: Readonly<Record<string, number>> = { prepare: 1, wait: 1, combine: 1, report: 1 };

export function faultGraph(record: Recorder, hold: () => Promise<void>): Graph {
  const prepare = node(
    { name: "prepare", inputs: ["topic", "at"], output: "prepared" },
    trampoline(({ topic, at }: { topic: string; at: Date }) => {
      const prepared = new Map([[topic, at.getTime()]]);
      record("prepare");
      return prepared;
    }),
  );
  const wait = node(
    { name: "wait", inputs: ["prepared"], output: "waited" },
    asyncTrampoline(async ({ prepared }: { prepared: Map<string, number> }) => {
      await hold();
      record("wait");
      return [...prepared.keys()];
    }),
  );
  const combine = node(
    { name: "combine", inputs: ["waited", "at"], output: "combined" },
    trampoline(({ waited, at }: { waited: string[]; at: Date }) => {
      const combined = { keys: waited, at: new Date(at.getTime() + 1000) };
      record("combine");
      return combined;
    }),
  );
  const report = node(
    { name: "report", inputs: ["combined"], output: "report" },
    trampoline(({ combined }: { combined: { keys: string[]; at: Date } }) => {
      const text = `${combined.keys.join(",")} @ ${combined.at.toISOString()}`;
      record("report");
      return text;
    }),
  );
  return new GraphClass([prepare, wait, combine, report], { name: "conformance-fault" });
}
