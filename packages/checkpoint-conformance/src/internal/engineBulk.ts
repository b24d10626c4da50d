/**
 * Bulk operations through the runtime on the adapter: `runner.stopMany`, `resumeMany` and `deleteMany` page through
 * `listWorkflows`, so every adapter's listing order, cursors and `rootsOnly` must hold up under a filter, a dry run and
 * deletions made while paging.
 */
import type { Checkpointer } from "@graph/checkpoint";
import { Graph, interrupt, node } from "@graph/core";
import { type BulkProgress, Runner } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import { SLOW } from "./engineCommon.js";
import { ids } from "./fixtures.js";
import { openStorage } from "./handles.js";
import type { DescribeCheckpointerOptions } from "./options.js";

/** `draft` → pause for `decision` → `final`; a nested graph gives each workflow a child workflow. */
function reviewGraph(name: string) {
  const draft = node({ output: "draft" }, async function draft({ topic }: { topic: string }) {
    return `draft of ${topic}`;
  });
  const inner = new Graph(
    [
      node({ output: "words" }, async function count({ draft }: { draft: string }) {
        return draft.split(" ").length;
      }),
    ],
    { name: `${name}-count` },
  );
  const approval = interrupt({ name: "approval", input: "draft", response: "decision" });
  const final = node(
    { output: "final" },
    async function final({ draft, decision }: { draft: string; decision: string }) {
      return `${draft}: ${decision}`;
    },
  );
  return new Graph([draft, inner.asNode({ name: "count" }), approval, final], { name });
}

/** A graph whose node fails while `broken.yes` is true: failed workflows to resume after the "fix". */
function flakyGraph(broken: { yes: boolean }) {
  return new Graph(
    [
      node({ output: "out" }, async function work({ n }: { n: number }) {
        if (broken.yes) throw new Error("upstream is down");
        return n * 2;
      }),
    ],
    { name: "bulk-flaky" },
  );
}

/** What each bulk test works with: a runner on one handle of a fresh storage, ids of its own, the review graph. */
interface BulkSetup {
  readonly checkpointer: Checkpointer;
  readonly runner: Runner;
  readonly id: (name?: string) => string;
  readonly review: Graph;
  /** Runs the review graph for `count` workflows `<prefix><i>`, each paused at its approval. */
  readonly paused: (prefix: string, count: number) => Promise<void>;
}

async function withBulkSetup(
  options: DescribeCheckpointerOptions,
  label: string,
  body: (setup: BulkSetup) => Promise<void>,
): Promise<void> {
  const storage = await openStorage(options);
  try {
    const checkpointer = await storage.open("sync");
    const runner = new Runner({ checkpointer });
    const id = ids(label);
    const review = reviewGraph("bulk-review");
    const paused = async (prefix: string, count: number) => {
      for (let i = 0; i < count; i++)
        await runner.run(review, { values: { topic: `t${i}` }, workflowId: id(`${prefix}${i}`) });
    };
    await body({ checkpointer, runner, id, review, paused });
    await runner.close();
  } finally {
    await storage.close();
  }
}

export function describeBulkOperations(options: DescribeCheckpointerOptions): void {
  describe("bulk operations (runner.stopMany / resumeMany / deleteMany)", () => {
    it(
      "filters by status, graph, id prefix and predicate, pages with progress, and a dry run touches nothing",
      {
        timeout: SLOW,
      },
      () =>
        withBulkSetup(options, "bulk-filter", async ({ checkpointer, runner, id, review, paused }) => {
          await paused("p", 5);
          for (let i = 0; i < 2; i++)
            await runner.run(review, { values: { topic: `c${i}`, decision: "ok" }, workflowId: id(`c${i}`) });
          const progress: BulkProgress[] = [];
          const preview = await runner.stopMany(
            { status: "paused", graph: "bulk-review", idPrefix: id() },
            { dryRun: true, pageSize: 2, onProgress: (p) => progress.push(p) },
          );
          expect(preview).toMatchObject({ dryRun: true, matched: 5, done: 0, skipped: [], failed: [] });
          expect([...preview.ids].sort()).toEqual([0, 1, 2, 3, 4].map((i) => id(`p${i}`)));
          expect(progress.length).toBeGreaterThanOrEqual(3);
          expect(progress.at(-1)).toMatchObject({ matched: 5, done: 0 });
          for (let i = 0; i < 5; i++) expect((await checkpointer.getWorkflow(id(`p${i}`)))?.status).toBe("paused");
          const some = await runner.deleteMany(
            { idPrefix: id(), where: (w) => w.id.endsWith("p1") || w.id.endsWith("c0") },
            { dryRun: true },
          );
          expect([...some.ids].sort()).toEqual([id("c0"), id("p1")]);
          const limited = await runner.stopMany({ idPrefix: id() }, { dryRun: true, limit: 3, pageSize: 1 });
          expect(limited.matched).toBe(3);
          const children = await runner.stopMany({ idPrefix: id(), includeChildren: true }, { dryRun: true });
          expect(children.matched).toBe(14);
        }),
    );

    it(
      "stopMany stops paused workflows and skips ended ones; resumeMany continues failed ones on the fixed graph",
      {
        timeout: SLOW,
      },
      () =>
        withBulkSetup(options, "bulk-ops", async ({ checkpointer, runner, id, review, paused }) => {
          await paused("p", 3);
          await runner.run(review, { values: { topic: "done", decision: "ok" }, workflowId: id("done") });
          const stopped = await runner.stopMany({ idPrefix: id(), graph: "bulk-review" }, { info: { why: "cleanup" } });
          expect(stopped).toMatchObject({ dryRun: false, matched: 4, done: 3, failed: [] });
          expect(stopped.skipped).toEqual([{ id: id("done"), reason: "already completed" }]);
          for (let i = 0; i < 3; i++) expect((await checkpointer.getWorkflow(id(`p${i}`)))?.status).toBe("stopped");

          const broken = { yes: true };
          const flaky = flakyGraph(broken);
          for (let i = 0; i < 4; i++) {
            const result = await runner
              .run(flaky, { values: { n: i }, workflowId: id(`f${i}`) })
              .catch((e: unknown) => e);
            expect((result as { status?: string }).status ?? (result as { _tag: string })._tag).toMatch(/failed|Error/);
          }
          broken.yes = false;
          const resumed = await runner.resumeMany(flaky, { idPrefix: id(), status: "failed" }, { pageSize: 3 });
          expect(resumed).toMatchObject({ matched: 4, done: 4, skipped: [], failed: [] });
          for (let i = 0; i < 4; i++) {
            const wf = await checkpointer.getWorkflow(id(`f${i}`));
            expect(wf?.status).toBe("completed");
            expect(await checkpointer.getState(id(`f${i}`))).toMatchObject({ n: i, out: i * 2 });
          }
          const wrongGraph = await runner.resumeMany(flaky, { idPrefix: id(), status: "stopped" });
          expect(wrongGraph.done).toBe(0);
          expect(wrongGraph.skipped.map((s) => s.reason)).toEqual(
            Array(3).fill("belongs to graph 'bulk-review', not 'bulk-flaky'"),
          );
        }),
    );

    it(
      "deleteMany deletes matched workflows with their children while paging, and skips one running under a live lease",
      {
        timeout: SLOW,
      },
      () =>
        withBulkSetup(options, "bulk-delete", async ({ checkpointer, runner, id, paused }) => {
          await paused("p", 7);
          const lease = await checkpointer.claimWorkflow(id("p3"), { owner: "someone-else", ttlMs: 60_000 });
          await checkpointer.updateWorkflow(id("p3"), { status: "running" }, { epoch: lease.epoch });
          const report = await runner.deleteMany({ idPrefix: id() }, { pageSize: 2 });
          expect(report.matched).toBe(7);
          expect(report.done).toBe(6);
          expect(report.skipped).toHaveLength(1);
          expect(report.skipped[0]!.id).toBe(id("p3"));
          expect(report.skipped[0]!.reason).toContain("running under someone-else's lease until");
          expect(report.skipped[0]!.reason).toContain("stop it first");
          for (let i = 0; i < 7; i++) {
            const gone = i !== 3;
            expect(await checkpointer.getWorkflow(id(`p${i}`)), `p${i}`).toSatisfy((w) => (w === undefined) === gone);
            expect(await checkpointer.getWorkflow(id(`p${i}/count`)), `p${i}/count`).toSatisfy(
              (w) => (w === undefined) === gone,
            );
          }
        }),
    );
  });
}
