/**
 * `@graph/upgrade/vitest`: yesterday's production runs as today's tests. Needs vitest (an optional peer).
 *
 * @module
 */
import type { Checkpointer } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import { expect } from "vitest";
import { type ReplayOptions, type ReplayResult, replay } from "./replay.js";

/**
 * Replays the stored workflow on `graph` (see `replay`) and fails the test with the diff when a value or a
 * decision differs (paths listed in `ignore` aside). Returns the replay for further checks.
 *
 * @example
 * ```ts
 * import { expectReplay } from "@graph/upgrade/vitest";
 * import { it } from "vitest";
 *
 * it("yesterday's run still decides the same on the new planner", async () => {
 *   await expectReplay(checkpointer, "pe-2026-11-25-17", planAndExecuteV2, { mock: ["**\/agent"] });
 * });
 * ```
 */
export async function expectReplay(
  checkpointer: Checkpointer,
  workflowId: string,
  graph: Graph,
  options: ReplayOptions = {},
): Promise<ReplayResult> {
  const replayed = await replay(checkpointer, workflowId, graph, options);
  const show = (v: unknown) => JSON.stringify(v) ?? String(v);
  const lines = [
    ...replayed.diff.decisions.map((d) => `  gate ${d.gate}: ${d.before.join(", ")} → ${d.after.join(", ")}`),
    ...replayed.diff.values.map((d) =>
      d.kind === "changed"
        ? `  ${d.path}: ${show(d.before)} → ${show(d.after)}`
        : d.kind === "added"
          ? `  ${d.path}: added ${show(d.after)}`
          : `  ${d.path}: removed (was ${show(d.before)})`,
    ),
  ];
  const message = `replay of '${workflowId}' on the new graph differs from the stored run:\n${lines.join("\n")}\n`;
  expect(replayed.diff, message).toEqual({
    values: [],
    decisions: [],
  });
  return replayed;
}
