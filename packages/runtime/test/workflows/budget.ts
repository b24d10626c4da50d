import type { Checkpointer } from "@graph/checkpoint";
import { asBudgetPause, BUDGET_KEY, END, Graph, node, route } from "@graph/core";
import { describe, expect, it } from "vitest";
import { type GraphEvent, Runner } from "../../src/index.js";

/**
 * An agent loop as users write it: `think` calls a model (300 tokens, $0.01 per call here) and appends to a shared
 * history until it holds `turns` entries. `calls` counts the model calls really made.
 */
export function spenderGraph(calls: { n: number }, turns = 10, onCall?: () => void): Graph {
  const think = node({ name: "think", output: "history" }, async ({ history }: { history: string[] }, ctx) => {
    calls.n++;
    onCall?.();
    await new Promise((resolve) => setTimeout(resolve, 1));
    ctx.usage({ tokens: 300, costUsd: 0.01 });
    return [...history, `thought ${history.length + 1}`];
  });
  const decide = route({ name: "decide", targets: ["think", END] }, ({ history }: { history: string[] }) =>
    history.length >= turns ? END : "think",
  );
  return new Graph([think, decide], { name: "spender" });
}

/** Each item of the map spends 100 tokens in one model call. */
function mappedGraph(calls: { n: number }): Graph {
  const spend = node({ name: "spend", output: "summary" }, async ({ doc }: { doc: string }, ctx) => {
    calls.n++;
    ctx.usage({ tokens: 100 });
    return doc.toUpperCase();
  });
  const inner = new Graph([spend], { name: "item" });
  return new Graph([inner.asNode({ name: "items" }).mapOver("doc", { concurrency: 1 })], { name: "mapper" });
}

/**
 * The budget scenarios on one store (a fresh checkpointer per scenario; `undefined`: no checkpointer).
 */
export function describeBudgetScenarios(where: string, fresh: () => Checkpointer | undefined): void {
  describe(`budgets (${where})`, () => {
    it("an agent loop pauses at the step that crossed the budget, with the totals; grants continue it", async () => {
      const checkpointer = fresh();
      const runner = new Runner(checkpointer === undefined ? {} : { checkpointer });
      const calls = { n: 0 };
      const graph = spenderGraph(calls);
      const first = await runner.run(graph, {
        values: { history: [] },
        workflowId: "loop-1",
        budget: { tokens: 1_000 },
      });
      expect(first.status).toBe("paused");
      expect(calls.n).toBe(4); // 1,200 tokens after the 4th call: 1,000 crossed
      expect(asBudgetPause(first.pause)?.value.exceeded).toEqual(["tokens"]);
      expect(first.pause).toEqual({
        reason: "budget",
        nodeName: "think",
        value: { spent: { tokens: 1_200, costUsd: 0.04, calls: 4 }, budget: { tokens: 1_000 }, exceeded: ["tokens"] },
        responseKey: BUDGET_KEY,
        // With a store the pause is named by its visit (the workflow's last superstep when it paused).
        ...(checkpointer === undefined ? {} : { visit: 8 }),
      });
      expect(first.usage).toEqual({ tokens: 1_200, costUsd: 0.04, calls: 4 });
      expect(first.get("history")).toHaveLength(4);
      if (checkpointer === undefined) return; // nothing to resume from
      const stored = await checkpointer.getSteps("loop-1", { includeInputs: true });
      expect(stored.filter((s) => s.nodeName === "think").map((s) => s.usage)).toEqual(
        Array(4).fill({ tokens: 300, costUsd: 0.01, calls: 1 }),
      );
      expect(stored.find((s) => s.kind === "input")?.budget).toEqual({ tokens: 1_000 });
      expect((await checkpointer.getWorkflow("loop-1"))?.pause?.responseKey).toBe(BUDGET_KEY);

      // +1,000 tokens: the limit is 2,000; the 7th call (2,100) crosses it.
      const second = await runner.run(graph, { workflowId: "loop-1", values: { [BUDGET_KEY]: { tokens: 1_000 } } });
      expect(calls.n).toBe(7);
      expect(second.status).toBe("paused");
      expect(second.pause?.value).toEqual({
        spent: { tokens: 2_100, costUsd: 0.07, calls: 7 },
        budget: { tokens: 2_000 },
        exceeded: ["tokens"],
      });
      // Resumed with no grant: still over, it pauses again before any call.
      const again = await runner.run(graph, { workflowId: "loop-1" });
      expect(again.status).toBe("paused");
      expect(calls.n).toBe(7);
      expect(again.pause?.nodeName).toBe("think");
      const done = await runner.run(graph, { workflowId: "loop-1", values: { [BUDGET_KEY]: { tokens: 5_000 } } });
      expect(done.status).toBe("completed");
      expect(calls.n).toBe(10);
      expect(done.get("history")).toHaveLength(10);
      expect(done.usage).toEqual({ tokens: 3_000, costUsd: expect.closeTo(0.1, 9), calls: 10 });
      await runner.close();
    });

    it("a run paused for its budget can be stopped instead of granted more", async () => {
      const checkpointer = fresh();
      if (checkpointer === undefined) return; // a pause without a store has nothing to stop
      const runner = new Runner({ checkpointer });
      const calls = { n: 0 };
      const graph = spenderGraph(calls);
      const paused = await runner.run(graph, { values: { history: [] }, workflowId: "stop-1", budget: { calls: 1 } });
      expect(paused.pause?.reason).toBe("budget");
      expect(await runner.stop("stop-1", { reason: "too expensive" })).toBe(true);
      expect((await checkpointer.getWorkflow("stop-1"))?.status).toBe("stopped");
      expect(calls.n).toBe(2);
      await runner.close();
    });

    it("map items count toward the root's budget; the pause names the item's node", async () => {
      const checkpointer = fresh();
      const runner = new Runner(checkpointer === undefined ? {} : { checkpointer });
      const calls = { n: 0 };
      const graph = mappedGraph(calls);
      const docs = ["a", "b", "c", "d", "e"];
      const first = await runner.run(graph, { values: { doc: docs }, workflowId: "map-1", budget: { tokens: 350 } });
      expect(first.status).toBe("paused");
      expect(calls.n).toBe(4);
      expect(first.pause?.nodeName).toBe("items/3/spend");
      expect(first.pause?.value).toEqual({
        spent: { tokens: 400, calls: 4 },
        budget: { tokens: 350 },
        exceeded: ["tokens"],
      });
      if (checkpointer === undefined) return;
      const done = await runner.run(graph, { workflowId: "map-1", values: { [BUDGET_KEY]: { tokens: 200 } } });
      expect(done.status).toBe("completed");
      expect(calls.n).toBe(5); // finished items are not run again
      expect(done.get("summary")).toEqual(["A", "B", "C", "D", "E"]);
      expect(done.usage).toEqual({ tokens: 500, calls: 5 });
      // The mapped node's step stores its items' total: the next resume starts from it.
      const steps = await checkpointer.getSteps("map-1");
      expect(steps.find((s) => s.nodeName === "items" && s.status === "completed")?.usage).toEqual({
        tokens: 500,
        calls: 5,
      });
      await runner.close();
    });

    it("a frames pipeline stops pulling frames over budget and pauses; a grant finishes it, no frame run twice", async () => {
      const checkpointer = fresh();
      const runner = new Runner(checkpointer === undefined ? {} : { checkpointer });
      const pulled: number[] = [];
      const embedded: number[] = [];
      const fetchPages = node(
        { name: "fetchPages", output: "page", frames: { window: 1 } },
        async function* fetchPages({ count }: { count: number }) {
          for (let i = 0; i < count; i++) {
            pulled.push(i);
            yield i;
          }
        },
      );
      const embed = node({ name: "embed", output: "vector" }, async ({ page }: { page: number }, ctx) => {
        embedded.push(page);
        ctx.usage({ tokens: 100 });
        return [page, page * 2];
      });
      const graph = new Graph([fetchPages, embed], { name: "pipeline" });
      const first = await runner.run(graph, { values: { count: 8 }, workflowId: "frames-1", budget: { tokens: 250 } });
      expect(first.status).toBe("paused");
      expect(embedded).toEqual([0, 1, 2]); // the third frame crossed 250; no fourth was pulled
      expect(pulled).toEqual([0, 1, 2]);
      expect(first.pause).toMatchObject({ reason: "budget", value: { spent: { tokens: 300, calls: 3 } } });
      if (checkpointer === undefined) return;
      const done = await runner.run(graph, { workflowId: "frames-1", values: { [BUDGET_KEY]: { tokens: 1_000 } } });
      expect(done.status).toBe("completed");
      expect(embedded).toEqual([0, 1, 2, 3, 4, 5, 6, 7]); // finished frames were not embedded again
      expect(done.usage).toEqual({ tokens: 800, calls: 8 });
      await runner.close();
    });

    it("a nested graph's spending counts toward its parent's budget", async () => {
      const checkpointer = fresh();
      const runner = new Runner(checkpointer === undefined ? {} : { checkpointer });
      const calls = { n: 0 };
      const outer = new Graph([spenderGraph(calls, 6).asNode({ name: "agent" })], { name: "outer" });
      const events: GraphEvent[] = [];
      const handle = runner.start(outer, { values: { history: [] }, workflowId: "nest-1", budget: { calls: 2 } });
      for await (const e of handle.events) events.push(e);
      const first = await handle.result;
      expect(calls.n).toBe(3);
      expect(first.pause?.nodeName).toBe("agent/think");
      expect(first.pause?.value).toMatchObject({ spent: { calls: 3 }, exceeded: ["calls"] });
      expect(events.filter((e) => e.type === "Paused").map((e) => (e as { reason: string }).reason)).toContain(
        "budget",
      );
      if (checkpointer === undefined) return;
      const done = await runner.run(outer, { workflowId: "nest-1", values: { [BUDGET_KEY]: { calls: 10 } } });
      expect(done.status).toBe("completed");
      expect(calls.n).toBe(6);
      expect(done.usage).toEqual({ tokens: 1_800, costUsd: expect.closeTo(0.06, 9), calls: 6 });
      await runner.close();
    });

    it("a run with nothing left to do completes even when its last step crossed the budget", async () => {
      const checkpointer = fresh();
      const runner = new Runner(checkpointer === undefined ? {} : { checkpointer });
      const calls = { n: 0 };
      const r = await runner.run(new Graph([spenderGraph(calls, 2).nodes.get("think")!]), {
        values: { history: [] },
        budget: { tokens: 200 },
      });
      expect(r.status).toBe("completed");
      expect(r.usage).toEqual({ tokens: 300, costUsd: 0.01, calls: 1 });
      await runner.close();
    });

    it("a wall-time budget pauses a slow loop after the step that crossed it", async () => {
      const checkpointer = fresh();
      const runner = new Runner(checkpointer === undefined ? {} : { checkpointer });
      let n = 0;
      const slow = node({ name: "slow", output: "count" }, async ({ count }: { count: number }) => {
        n++;
        await new Promise((resolve) => setTimeout(resolve, 40));
        return count + 1;
      });
      const again = route({ name: "again", targets: ["slow", END] }, ({ count }: { count: number }) =>
        count >= 20 ? END : "slow",
      );
      const r = await runner.run(new Graph([slow, again]), {
        values: { count: 0 },
        workflowId: "wall-1",
        budget: { wallMs: 100 },
      });
      expect(r.status).toBe("paused");
      // 3 × 40 ms cross 100 ms; the run's own store writes count too, so on a loaded store 1 or 2 calls can.
      expect(n).toBeGreaterThanOrEqual(1);
      expect(n).toBeLessThan(20);
      const value = asBudgetPause(r.pause)?.value;
      expect(value?.exceeded).toEqual(["wallMs"]);
      expect(value?.spent.wallMs).toBeGreaterThan(100);
      await runner.close();
    });

    it("bad budgets and bad reports are refused with what and how", async () => {
      const runner = new Runner({});
      const calls = { n: 0 };
      const graph = spenderGraph(calls);
      await expect(runner.run(graph, { values: { history: [] }, budget: { tokens: -1 } })).rejects.toMatchObject({
        _tag: "InvalidOptionError",
        message: expect.stringContaining("budget.tokens"),
      });
      await expect(runner.run(graph, { values: { history: [] }, budget: { token: 5 } as never })).rejects.toMatchObject(
        { message: expect.stringContaining("tokens, costUsd, calls, wallMs") },
      );
      await expect(
        runner.run(graph, { values: { history: [], [BUDGET_KEY]: { tokens: "lots" } as never } }),
      ).rejects.toMatchObject({ message: expect.stringContaining(`values['${BUDGET_KEY}'].tokens`) });
      const liar = node({ name: "liar", output: "x" }, ({ y }: { y: number }, ctx) => {
        ctx.usage({ tokens: Number.NaN });
        return y;
      });
      await expect(runner.run(new Graph([liar]), { values: { y: 1 } })).rejects.toMatchObject({
        message: expect.stringContaining("ctx.usage() in node 'liar'"),
      });
      expect(calls.n).toBe(0);
      await runner.close();
    });
  });
}
