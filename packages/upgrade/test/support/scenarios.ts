import type { Checkpointer } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import { Runner } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import { checkCompatibility, isUpgradeBlockedError, UPGRADE_STEP, upgrades } from "../../src/index.js";
import { v1, v2Added, v2Changed, v2NoApproval, v2Renamed } from "./post.js";

const DRAFT = "draft: outline of cats";

/** Runs v1 of the post workflow until it pauses at `approve`, then closes its runner (the deploy). */
export async function pausedOnV1(checkpointer: Checkpointer, workflowId: string): Promise<void> {
  const runner = new Runner({ checkpointer, upgrade: upgrades(), closeCheckpointer: false });
  const paused = await runner.run(v1(), { workflowId, values: { topic: "cats" } });
  expect(paused.status).toBe("paused");
  expect(paused.pause).toMatchObject({ nodeName: "approve", value: DRAFT, responseKey: "decision" });
  await runner.close();
}

/** Resumes `workflowId` on `graph` with `values` through a runner with the upgrade hook. */
export async function resume(
  checkpointer: Checkpointer,
  graph: Graph,
  workflowId: string,
  values: Record<string, unknown>,
) {
  const runner = new Runner({ checkpointer, upgrade: upgrades(), closeCheckpointer: false });
  try {
    return await runner.run(graph, { workflowId, values });
  } finally {
    await runner.close();
  }
}

/**
 * The upgrade scenarios of issue 28 on one backend: a v1 workflow paused at `approve`, then v2 with (a) a changed
 * node body, (b) an added node, (c) a renamed value with a migration, (d) a removed interrupt.
 */
export function describeUpgradeScenarios(name: string, open: () => Checkpointer): void {
  describe(`upgrading paused workflows (${name})`, () => {
    it("(a) a changed node body that has not run: resumable, and the resume runs the new code", async () => {
      const cp = open();
      try {
        await pausedOnV1(cp, "a");
        const v2 = v2Changed();
        const report = await checkCompatibility(cp, "a", v2);
        expect(report?.verdict).toBe("resumable");
        expect(report?.changes).toEqual([
          { kind: "node-changed", node: "publish", nodeKind: "function", kindChanged: false },
        ]);
        expect(report?.reasons).toEqual([
          "node 'publish' changed; it has not finished, so it runs with the new code.",
          "the pause at 'approve' is still there: answer 'decision' to resume.",
        ]);
        expect(report?.from.label).toBe("v1");
        const done = await resume(cp, v2, "a", { decision: "ok" });
        expect(done.status).toBe("completed");
        expect(done.values).toEqual({
          outline: "outline of cats",
          draft: DRAFT,
          decision: "ok",
          post: `${DRAFT} [ok] — v2`,
        });
        expect((await cp.getWorkflow("a"))?.graphHash).toBe(v2.definitionHash);
      } finally {
        await cp.close();
      }
    });

    it("(b) an added node: resumable; the new node runs on the stored draft", async () => {
      const cp = open();
      try {
        await pausedOnV1(cp, "b");
        const v2 = v2Added();
        const report = await checkCompatibility(cp, "b", v2);
        expect(report?.verdict).toBe("resumable");
        expect(report?.changes).toEqual([{ kind: "node-added", node: "count", nodeKind: "function" }]);
        expect(report?.reasons).toContain("node 'count' is new: it runs once its inputs are there.");
        const done = await resume(cp, v2, "b", { decision: "ok" });
        expect(done.values).toEqual({
          outline: "outline of cats",
          draft: DRAFT,
          decision: "ok",
          post: `${DRAFT} [ok]`,
          words: 4,
        });
      } finally {
        await cp.close();
      }
    });

    it("(c) a renamed value: blocked without a migration; with rename it migrates once, as a step, and resumes", async () => {
      const cp = open();
      try {
        await pausedOnV1(cp, "c");
        const bare = v2Renamed(false);
        const blocked = await checkCompatibility(cp, "c", bare);
        expect(blocked?.verdict).toBe("blocked");
        expect(blocked?.blockers).toEqual([
          `node 'write' finished under the stored version, which did not write 'body'; the new version needs it and won't run 'write' again. Add a migration { from: "v1", rename: { draft: "body" } }.`,
        ]);
        const refused = await resume(cp, bare, "c", { decision: "ok" }).catch((e: unknown) => e);
        expect(isUpgradeBlockedError(refused)).toBe(true);
        expect((await cp.getWorkflow("c"))?.graphHash).toBe(v1().definitionHash); // nothing written

        const v2 = v2Renamed(true);
        const report = await checkCompatibility(cp, "c", v2);
        expect(report?.verdict).toBe("resumable-with-migration");
        expect(report?.migration).toEqual(["rename 'draft' → 'body'"]);
        const done = await resume(cp, v2, "c", { decision: "ok" });
        expect(done.status).toBe("completed");
        // The old name stays in the stored state (history), so it is in the results too.
        expect(done.values).toEqual({
          outline: "outline of cats",
          draft: DRAFT,
          body: DRAFT,
          decision: "ok",
          post: `${DRAFT} [ok]`,
        });
        const upgradeSteps = (await cp.getSteps("c")).filter((s) => s.nodeName === UPGRADE_STEP);
        expect(upgradeSteps).toHaveLength(1);
        expect(upgradeSteps[0]).toMatchObject({ status: "completed", values: { body: DRAFT } });
        expect(Object.keys(upgradeSteps[0]!.inputVersions)).toEqual(["draft"]);
        // Run again: nothing to migrate, nothing runs.
        const again = await resume(cp, v2, "c", {});
        expect(again.values).toEqual(done.values);
        expect((await cp.getSteps("c")).filter((s) => s.nodeName === UPGRADE_STEP)).toHaveLength(1);
      } finally {
        await cp.close();
      }
    });

    it("(d) a removed interrupt: blocked without a migration; pause: drop ends the pause and the run publishes", async () => {
      const cp = open();
      try {
        await pausedOnV1(cp, "d");
        const blocked = await checkCompatibility(cp, "d", v2NoApproval(false));
        expect(blocked?.verdict).toBe("blocked");
        expect(blocked?.blockers).toEqual([
          `the workflow is paused at 'approve', which the new version removed. Add a migration { from: "v1", pause: { "approve": "<new interrupt>" } } or { pause: { "approve": drop } } (continue without the answer).`,
        ]);
        const v2 = v2NoApproval(true);
        const report = await checkCompatibility(cp, "d", v2);
        expect(report?.verdict).toBe("resumable-with-migration");
        expect(report?.migration).toEqual(["drop the pause at 'approve'"]);
        expect(report?.reasons).toContain("node 'approve' was removed; it had not finished, so nothing of it is kept.");
        const done = await resume(cp, v2, "d", {});
        expect(done.status).toBe("completed");
        expect(done.values).toEqual({ outline: "outline of cats", draft: DRAFT, post: `${DRAFT} [auto]` });
        const steps = await cp.getSteps("d");
        expect(steps.filter((s) => s.nodeName === "approve").map((s) => s.status)).toEqual(["paused", "stopped"]);
      } finally {
        await cp.close();
      }
    });
  });
}
