/**
 * Storage conformance: the `Checkpointer` contract exercised directly (no runtime).
 *
 * Every test creates its own checkpointer through the factory and uses workflow ids unique to the test run, so the
 * suite also works when all instances share one database (SQL adapters).
 */

import type { Checkpointer, ListWorkflowsOptions, StepRecord, WorkflowRecord } from "@graph/checkpoint";
import { compareWorkflowPosition, END_DECISION, INPUT_STEP, resolvePolicy } from "@graph/checkpoint";
import { describe, expect, it } from "vitest";
import {
  assertCheckpointError,
  assertConflictError,
  ids,
  rejection,
  sleep,
  step,
  withCheckpointer,
} from "./fixtures.js";
import type { DescribeCheckpointerOptions } from "./options.js";

const SLOW = 60_000;

async function create(checkpointer: Checkpointer, id: string, parentId?: string): Promise<WorkflowRecord> {
  const result = await checkpointer.createWorkflow({
    id,
    graphName: "conformance",
    graphHash: "hash-1",
    ...(parentId === undefined ? {} : { parentId }),
  });
  return result.workflow;
}

/** Walks every page of `listWorkflows` and returns the ids in page order. */
async function listAll(
  checkpointer: Checkpointer,
  options: ListWorkflowsOptions & { readonly limit: number },
): Promise<WorkflowRecord[]> {
  const all: WorkflowRecord[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100_000; pages++) {
    const page = await checkpointer.listWorkflows({ ...options, ...(cursor === undefined ? {} : { cursor }) });
    expect(page.workflows.length).toBeLessThanOrEqual(options.limit);
    all.push(...page.workflows);
    if (page.nextCursor === undefined) return all;
    cursor = page.nextCursor;
  }
  throw new Error("listWorkflows never stopped returning nextCursor");
}

/** The retention scenario (same as the unit tests of `compactSteps`): 8 steps over supersteps 0–5. */
function retentionHistory(workflowId: string): StepRecord[] {
  const s = (index: number, superstep: number, nodeName: string, values: Record<string, unknown>) =>
    step(workflowId, { index, superstep, nodeName, values });
  return [
    s(0, 0, INPUT_STEP, { q: "hi" }),
    s(1, 1, "A", { a: 1 }),
    s(2, 2, "B", { b: 1 }),
    s(3, 3, "A", { a: 2 }),
    s(4, 3, "G", {}),
    s(5, 4, "B", { c: 1 }),
    s(6, 5, "A", { a: 3 }),
    s(7, 5, "G", {}),
  ];
}

/** Values of every supported type, nested. */
function richValues(): Record<string, unknown> {
  return {
    date: new Date(Date.UTC(2020, 1, 29, 12, 0, 0, 1)),
    map: new Map<unknown, unknown>([
      ["k", { nested: [1, undefined, 2n] }],
      [3, new Set(["x"])],
    ]),
    set: new Set<unknown>([1, "a", null]),
    big: 12_345_678_901_234_567_890n,
    negativeBig: -5n,
    bytes: new Uint8Array([0, 255, 1, 128]),
    missing: undefined,
    list: [null, true, "s", 1.5, undefined, [new Date(0)]],
    nested: { deep: { deeper: { text: "ünïcødé ✓ 🚀", empty: {}, none: [] } } },
    special: [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY],
    escaped: { $t: "Date", v: "not a date" },
    quote: `'"\\%_`,
  };
}

/** Registers the storage tests. */
export function describeStorage(options: DescribeCheckpointerOptions): void {
  const run = <A>(body: (checkpointer: Checkpointer) => Promise<A>, policy?: Parameters<typeof resolvePolicy>[0]) =>
    withCheckpointer(options, policy === undefined ? {} : { policy: resolvePolicy(policy) }, body);

  describe("setup and lifecycle", () => {
    it("setup is idempotent, sequentially and concurrently", async () => {
      await run(async (checkpointer) => {
        await checkpointer.setup();
        await checkpointer.setup();
        await Promise.all([checkpointer.setup(), checkpointer.setup()]);
      });
    });

    it("two instances can set up at once", async () => {
      const a = await options.create({});
      const b = await options.create({});
      try {
        await Promise.all([a.setup(), b.setup()]);
        const id = ids("two-instances")();
        await create(a, id);
        await a.setup();
        expect((await a.getWorkflow(id))?.id).toBe(id);
      } finally {
        for (const checkpointer of [a, b]) {
          await (options.destroy === undefined ? checkpointer.close() : options.destroy(checkpointer));
        }
      }
    });

    it("close is idempotent", async () => {
      const checkpointer = await options.create({});
      await checkpointer.setup();
      await checkpointer.close();
      await checkpointer.close();
    });
  });

  describe("workflows", () => {
    it("createWorkflow creates once, then returns the stored record unchanged", async () => {
      await run(async (checkpointer) => {
        const id = ids("create")();
        const before = Date.now();
        const first = await checkpointer.createWorkflow({ id, graphName: "g", graphHash: "h1" });
        expect(first.created).toBe(true);
        expect(first.workflow).toMatchObject({
          id,
          graphName: "g",
          graphHash: "h1",
          status: "running",
          lastSuperstep: -1,
          stepCount: 0,
        });
        expect(first.workflow.parentId).toBeUndefined();
        expect(first.workflow.lease).toBeUndefined();
        expect(first.workflow.createdAt).toBeInstanceOf(Date);
        expect(first.workflow.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
        expect(first.workflow.updatedAt.getTime()).toBeGreaterThanOrEqual(first.workflow.createdAt.getTime());

        const second = await checkpointer.createWorkflow({ id, graphName: "other", graphHash: "h2" });
        expect(second.created).toBe(false);
        expect(second.workflow.graphHash).toBe("h1");
        expect(second.workflow.graphName).toBe("g");
        expect(await checkpointer.getWorkflow(id)).toEqual(second.workflow);
      });
    });

    it("concurrent createWorkflow calls create exactly once", async () => {
      await run(async (checkpointer) => {
        const id = ids("create-race")();
        const results = await Promise.all(
          Array.from({ length: 5 }, () => checkpointer.createWorkflow({ id, graphName: "g", graphHash: "h" })),
        );
        expect(results.filter((result) => result.created)).toHaveLength(1);
      });
    });

    it("records the parent of a child workflow", async () => {
      await run(async (checkpointer) => {
        const id = ids("parent");
        await create(checkpointer, id());
        const child = await create(checkpointer, `${id()}/child`, id());
        expect(child.parentId).toBe(id());
        expect((await checkpointer.getWorkflow(`${id()}/child`))?.parentId).toBe(id());
      });
    });

    it("updateWorkflow sets and clears status, graph hash, pause and error", async () => {
      await run(async (checkpointer) => {
        const id = ids("update")();
        const created = await create(checkpointer, id);
        await sleep(5);
        const pause = {
          nodeName: "approve",
          value: { draft: "text", at: new Date(1), tags: new Set(["a"]) },
          responseKey: "approved",
        };
        const paused = await checkpointer.updateWorkflow(id, { status: "paused", graphHash: "hash-2", pause });
        expect(paused).toMatchObject({ status: "paused", graphHash: "hash-2" });
        expect(paused.pause).toStrictEqual(pause);
        expect(paused.updatedAt.getTime()).toBeGreaterThan(created.updatedAt.getTime() - 1);
        expect(await checkpointer.getWorkflow(id)).toStrictEqual(paused);

        const error = { name: "NodeExecutionError", message: "boom", tag: "NodeExecutionError", stack: "at x" };
        const failed = await checkpointer.updateWorkflow(id, { status: "failed", pause: null, error });
        expect(failed.status).toBe("failed");
        expect(failed.pause).toBeUndefined();
        expect(failed.error).toStrictEqual(error);

        const cleared = await checkpointer.updateWorkflow(id, { status: "completed", error: null });
        expect(cleared.error).toBeUndefined();
        expect(cleared.graphHash).toBe("hash-2");
        expect(await checkpointer.getWorkflow(id)).toStrictEqual(cleared);

        const unchanged = await checkpointer.updateWorkflow(id, {});
        expect(unchanged.status).toBe("completed");
      });
    });
  });

  describe("steps", () => {
    it("round-trips a step with rich values and every optional field exactly", async () => {
      await run(async (checkpointer) => {
        const id = ids("rich")();
        await create(checkpointer, id);
        const saved = step(id, {
          superstep: 2,
          nodeName: "approve",
          index: 5,
          status: "paused",
          inputVersions: { draft: 3, bound: 0 },
          values: richValues(),
          decision: ["a", END_DECISION],
          childWorkflowId: `${id}/sub`,
          pause: { value: { question: "ok?", at: new Date(2) }, responseKey: "approved" },
          truncated: true,
          error: { name: "Error", message: "m", tag: "T", stack: "s" },
        });
        await checkpointer.saveStep(saved);
        const [loaded] = await checkpointer.getSteps(id);
        expect(loaded).toStrictEqual(saved);
        expect(Object.hasOwn(loaded!.values, "missing")).toBe(true);
        expect(await checkpointer.getState(id)).toStrictEqual(saved.values);
      });
    });

    it("round-trips every decision form and omits absent optional fields", async () => {
      await run(async (checkpointer) => {
        const id = ids("decisions")();
        await create(checkpointer, id);
        const steps = [
          step(id, { superstep: 0, nodeName: "plain", index: 0 }),
          step(id, { superstep: 1, nodeName: "gate", index: 1, decision: "next" }),
          step(id, { superstep: 2, nodeName: "gate", index: 2, decision: null }),
          step(id, { superstep: 3, nodeName: "gate", index: 3, decision: END_DECISION }),
          step(id, { superstep: 4, nodeName: "gate", index: 4, decision: [] }),
          step(id, {
            superstep: 5,
            nodeName: "bad",
            index: 5,
            status: "failed",
            error: { name: "TypeError", message: "x" },
          }),
          step(id, { superstep: 6, nodeName: "stopped", index: 6, status: "stopped", truncated: true }),
        ];
        for (const saved of steps) await checkpointer.saveStep(saved);
        const loaded = await checkpointer.getSteps(id);
        expect(loaded).toStrictEqual(steps);
        expect(Object.keys(loaded[0]!)).not.toContain("decision");
        expect(Object.keys(loaded[0]!)).not.toContain("error");
        expect(Object.keys(loaded[0]!)).not.toContain("pause");
        expect(Object.keys(loaded[0]!)).not.toContain("childWorkflowId");
      });
    });

    it("stores a copy: mutating values after saving changes nothing", async () => {
      await run(async (checkpointer) => {
        const id = ids("copy")();
        await create(checkpointer, id);
        const values = { list: [1, 2], map: new Map([["k", 1]]), when: new Date(5) };
        await checkpointer.saveStep(step(id, { superstep: 0, nodeName: "n", index: 0, values }));
        values.list.push(3);
        values.map.set("j", 2);
        values.when.setTime(99);
        const [loaded] = await checkpointer.getSteps(id);
        expect(loaded!.values).toStrictEqual({ list: [1, 2], map: new Map([["k", 1]]), when: new Date(5) });
        // And mutating what was read does not change storage either.
        (loaded!.values["list"] as number[]).push(4);
        expect((await checkpointer.getSteps(id))[0]!.values["list"]).toEqual([1, 2]);
      });
    });

    it("upserts on (workflowId, superstep, nodeName)", async () => {
      await run(async (checkpointer) => {
        const id = ids("upsert")();
        await create(checkpointer, id);
        await checkpointer.saveStep(
          step(id, { superstep: 1, nodeName: "n", index: 1, status: "failed", values: { x: 1 } }),
        );
        await checkpointer.saveStep(step(id, { superstep: 1, nodeName: "other", index: 2, values: { y: 1 } }));
        await checkpointer.saveStep(step(id, { superstep: 1, nodeName: "n", index: 3, values: { x: 2, z: 1 } }));
        const steps = await checkpointer.getSteps(id);
        expect(steps.map((s) => [s.nodeName, s.index, s.status])).toEqual([
          ["other", 2, "completed"],
          ["n", 3, "completed"],
        ]);
        expect(steps[1]!.values).toStrictEqual({ x: 2, z: 1 });
        expect((await checkpointer.getWorkflow(id))?.stepCount).toBe(2);
        // The same node in another superstep is another step.
        await checkpointer.saveStep(step(id, { superstep: 2, nodeName: "n", index: 4 }));
        expect((await checkpointer.getWorkflow(id))?.stepCount).toBe(3);
      });
    });

    it("returns steps in index order whatever the save order", async () => {
      await run(async (checkpointer) => {
        const id = ids("order")();
        await create(checkpointer, id);
        for (const index of [3, 0, 2, 1, 10]) {
          await checkpointer.saveStep(step(id, { superstep: index, nodeName: `n${index}`, index }));
        }
        expect((await checkpointer.getSteps(id)).map((s) => s.index)).toEqual([0, 1, 2, 3, 10]);
      });
    });

    it("reads history through a superstep; versions are the index of the last writer", async () => {
      await run(async (checkpointer) => {
        const id = ids("through")();
        await create(checkpointer, id);
        const steps = [
          step(id, { superstep: 0, nodeName: INPUT_STEP, kind: "input", index: 0, values: { q: "hi", n: 0 } }),
          step(id, { superstep: 1, nodeName: "a", index: 1, values: { a: 1 } }),
          step(id, { superstep: 1, nodeName: "b", index: 2, values: { b: 1, n: 1 } }),
          step(id, { superstep: 2, nodeName: "a", index: 3, values: { a: 2 } }),
          step(id, { superstep: 3, nodeName: "c", index: 4, values: { c: 1 }, status: "failed" }),
        ];
        for (const saved of steps) await checkpointer.saveStep(saved);

        const workflow = await checkpointer.getWorkflow(id);
        expect(workflow?.lastSuperstep).toBe(3);
        expect(workflow?.stepCount).toBe(5);

        // Input records are left out unless asked for (one record per executed node), and read back as kind "input".
        expect((await checkpointer.getSteps(id, { throughSuperstep: 1 })).map((s) => s.index)).toEqual([1, 2]);
        const withInputs = await checkpointer.getSteps(id, { throughSuperstep: 1, includeInputs: true });
        expect(withInputs.map((s) => [s.index, s.kind ?? "node"])).toEqual([
          [0, "input"],
          [1, "node"],
          [2, "node"],
        ]);
        expect(await checkpointer.getSteps(id, { throughSuperstep: -1 })).toEqual([]);
        expect(await checkpointer.getState(id, { throughSuperstep: 1 })).toStrictEqual({ q: "hi", n: 1, a: 1, b: 1 });
        expect(await checkpointer.getState(id)).toStrictEqual({ q: "hi", n: 1, a: 2, b: 1, c: 1 });

        const atOne = await checkpointer.getCheckpoint(id, { superstep: 1 });
        expect(atOne).toStrictEqual({
          workflowId: id,
          superstep: 1,
          values: { q: "hi", n: 1, a: 1, b: 1 },
          versions: { q: 0, n: 2, a: 1, b: 2 },
          steps: steps.slice(0, 3),
        });
        const latest = await checkpointer.getCheckpoint(id);
        expect(latest?.superstep).toBe(3);
        expect(latest?.versions).toStrictEqual({ q: 0, n: 2, a: 3, b: 2, c: 4 });
        expect(latest?.steps).toStrictEqual(steps);
      });
    });

    it("gives an empty checkpoint for a workflow without steps", async () => {
      await run(async (checkpointer) => {
        const id = ids("empty")();
        await create(checkpointer, id);
        expect(await checkpointer.getCheckpoint(id)).toStrictEqual({
          workflowId: id,
          superstep: -1,
          values: {},
          versions: {},
          steps: [],
        });
        expect(await checkpointer.getSteps(id)).toEqual([]);
        expect(await checkpointer.getState(id)).toEqual({});
      });
    });

    it("keeps workflows isolated from each other (including ids that are prefixes of others)", async () => {
      await run(async (checkpointer) => {
        const id = ids("isolation");
        await create(checkpointer, id("x"));
        await create(checkpointer, id("x2"));
        await checkpointer.saveStep(step(id("x"), { superstep: 0, nodeName: "n", index: 0, values: { v: "x" } }));
        await checkpointer.saveStep(step(id("x2"), { superstep: 0, nodeName: "n", index: 0, values: { v: "x2" } }));
        expect(await checkpointer.getState(id("x"))).toEqual({ v: "x" });
        expect(await checkpointer.getState(id("x2"))).toEqual({ v: "x2" });
        await checkpointer.deleteWorkflow(id("x"));
        expect(await checkpointer.getState(id("x2"))).toEqual({ v: "x2" });
      });
    });
  });

  describe("listWorkflows", () => {
    it("cursor pages cover every workflow exactly once, in (createdAt, id) order", { timeout: SLOW }, async () => {
      await run(async (checkpointer) => {
        const id = ids("pages");
        const mine = Array.from({ length: 25 }, (_, i) => id(`w${String(i).padStart(2, "0")}`));
        // Shuffled creation order, so id order and creation order disagree.
        for (const workflowId of [...mine].sort(() => Math.random() - 0.5)) await create(checkpointer, workflowId);
        const all = await listAll(checkpointer, { limit: 7 });
        const seen = all.map((workflow) => workflow.id);
        expect(new Set(seen).size).toBe(seen.length);
        const ours = all.filter((workflow) => workflow.id.startsWith(id()));
        expect(ours.map((workflow) => workflow.id).sort()).toEqual([...mine].sort());
        for (let i = 1; i < ours.length; i++) {
          expect(compareWorkflowPosition(ours[i - 1]!, ours[i]!)).toBeLessThan(0);
        }
      });
    });

    it("filters by status and roots, and honours limit", async () => {
      await run(async (checkpointer) => {
        const id = ids("filters");
        for (let i = 0; i < 6; i++) await create(checkpointer, id(`w${i}`));
        await create(checkpointer, `${id("w0")}/child`, id("w0"));
        for (const i of [1, 3]) await checkpointer.updateWorkflow(id(`w${i}`), { status: "paused" });
        await checkpointer.updateWorkflow(`${id("w0")}/child`, { status: "paused" });

        const paused = (await listAll(checkpointer, { status: "paused", limit: 2 }))
          .filter((workflow) => workflow.id.startsWith(id()))
          .map((workflow) => workflow.id);
        expect(paused.sort()).toEqual([`${id("w0")}/child`, id("w1"), id("w3")].sort());

        const pausedRoots = (await listAll(checkpointer, { status: "paused", rootsOnly: true, limit: 50 }))
          .filter((workflow) => workflow.id.startsWith(id()))
          .map((workflow) => workflow.id);
        expect(pausedRoots.sort()).toEqual([id("w1"), id("w3")].sort());

        const roots = await listAll(checkpointer, { rootsOnly: true, limit: 50 });
        expect(roots.every((workflow) => workflow.parentId === undefined)).toBe(true);
        expect(roots.filter((workflow) => workflow.id.startsWith(id()))).toHaveLength(6);

        const firstPage = await checkpointer.listWorkflows({ limit: 3 });
        expect(firstPage.workflows).toHaveLength(3);
        expect(firstPage.nextCursor).toEqual(expect.any(String));
      });
    });

    it("rejects a malformed cursor or limit with CheckpointError", async () => {
      await run(async (checkpointer) => {
        assertCheckpointError(await rejection(checkpointer.listWorkflows({ cursor: "not-a-cursor!" })));
        assertCheckpointError(await rejection(checkpointer.listWorkflows({ limit: 0 })));
        assertCheckpointError(await rejection(checkpointer.listWorkflows({ limit: -3 })));
      });
    });
  });

  describe("retention", () => {
    async function replay(checkpointer: Checkpointer, id: string) {
      await create(checkpointer, id);
      for (const saved of retentionHistory(id)) await checkpointer.saveStep(saved);
      const checkpoint = await checkpointer.getCheckpoint(id);
      const workflow = await checkpointer.getWorkflow(id);
      return { checkpoint: checkpoint!, workflow: workflow! };
    }

    async function reference(id: string) {
      return run((checkpointer) => replay(checkpointer, id));
    }

    it("full keeps every step", async () => {
      const id = ids("full")();
      const { checkpoint, workflow } = await reference(id);
      expect(checkpoint.steps).toHaveLength(8);
      expect(workflow.stepCount).toBe(8);
      expect(checkpoint.values).toStrictEqual({ q: "hi", a: 3, b: 1, c: 1 });
      expect(checkpoint.versions).toStrictEqual({ q: 0, a: 6, b: 2, c: 5 });
    });

    it("latest keeps the newest step per node plus steps still holding values; state and versions unchanged", async () => {
      const id = ids("latest");
      const full = await reference(id("full"));
      await run(
        async (checkpointer) => {
          const { checkpoint, workflow } = await replay(checkpointer, id("latest"));
          expect(checkpoint.steps.map((s) => s.index)).toEqual([0, 2, 5, 6, 7]);
          expect(workflow.stepCount).toBe(5);
          expect(workflow.lastSuperstep).toBe(5);
          expect(checkpoint.values).toStrictEqual(full.checkpoint.values);
          expect(checkpoint.versions).toStrictEqual(full.checkpoint.versions);
          expect(await checkpointer.getState(id("latest"))).toStrictEqual(full.checkpoint.values);
        },
        { retention: "latest" },
      );
    });

    it("windowed keeps the last `window` supersteps whole and compacts older ones", async () => {
      const id = ids("windowed");
      const full = await reference(id("full"));
      await run(
        async (checkpointer) => {
          const { checkpoint, workflow } = await replay(checkpointer, id("w3"));
          expect(checkpoint.steps.map((s) => s.index)).toEqual([0, 2, 3, 4, 5, 6, 7]);
          expect(workflow.stepCount).toBe(7);
          expect(checkpoint.values).toStrictEqual(full.checkpoint.values);
          expect(checkpoint.versions).toStrictEqual(full.checkpoint.versions);
        },
        { retention: "windowed", window: 3 },
      );
      await run(
        async (checkpointer) => {
          const { checkpoint } = await replay(checkpointer, id("w1"));
          expect(checkpoint.steps.map((s) => s.index)).toEqual([0, 2, 5, 6, 7]);
          expect(checkpoint.versions).toStrictEqual(full.checkpoint.versions);
        },
        { retention: "windowed", window: 1 },
      );
    });

    it("ttlMs deletes idle workflows (and their children) on createWorkflow, but not live running ones", async () => {
      const id = ids("ttl");
      await run(
        async (checkpointer) => {
          await create(checkpointer, id("done"));
          await create(checkpointer, `${id("done")}/child`, id("done"));
          await checkpointer.updateWorkflow(id("done"), { status: "completed" });
          await create(checkpointer, id("live"));
          await checkpointer.claimWorkflow(id("live"), { owner: "runner", ttlMs: 60_000 });
          await sleep(80);
          await create(checkpointer, id("new"));
          expect(await checkpointer.getWorkflow(id("done"))).toBeUndefined();
          expect(await checkpointer.getWorkflow(`${id("done")}/child`)).toBeUndefined();
          expect(await checkpointer.getWorkflow(id("live"))).toBeDefined();
          expect(await checkpointer.getWorkflow(id("new"))).toBeDefined();
        },
        { ttlMs: 50 },
      );
    });
  });

  describe("deleteWorkflow", () => {
    it("removes the workflow, its steps and its children, and leaves siblings", async () => {
      await run(async (checkpointer) => {
        const id = ids("delete");
        const family = [id("a"), `${id("a")}/child`, `${id("a")}/child/0`, id("ab"), `${id("ab")}/child`, id("a-b")];
        for (const workflowId of family) {
          await create(checkpointer, workflowId);
          await checkpointer.saveStep(
            step(workflowId, { superstep: 0, nodeName: "n", index: 0, values: { id: workflowId } }),
          );
        }
        await checkpointer.deleteWorkflow(id("a"));
        for (const gone of family.slice(0, 3)) {
          expect(await checkpointer.getWorkflow(gone)).toBeUndefined();
          expect(await checkpointer.getSteps(gone)).toEqual([]);
        }
        for (const kept of family.slice(3)) {
          expect((await checkpointer.getWorkflow(kept))?.stepCount).toBe(1);
          expect(await checkpointer.getState(kept)).toEqual({ id: kept });
        }
        // The id can be reused afterwards, starting empty.
        const again = await checkpointer.createWorkflow({ id: id("a"), graphName: "g", graphHash: "h" });
        expect(again.created).toBe(true);
        expect(await checkpointer.getSteps(id("a"))).toEqual([]);
      });
    });

    it("does not treat %, _ or backslash as wildcards when deleting children", async () => {
      await run(async (checkpointer) => {
        const id = ids("wildcards");
        const all = [
          id("p%"),
          `${id("p%")}/c`,
          `${id("pX")}/c`,
          id("q_"),
          `${id("q_")}/c`,
          `${id("qa")}/c`,
          id("r\\"),
          `${id("r\\")}/c`,
          `${id("r")}/c`,
          `${id("r\\\\")}/c`,
        ];
        for (const workflowId of all) await create(checkpointer, workflowId);
        for (const root of [id("p%"), id("q_"), id("r\\")]) await checkpointer.deleteWorkflow(root);
        const remaining = [];
        for (const workflowId of all)
          if ((await checkpointer.getWorkflow(workflowId)) !== undefined) remaining.push(workflowId);
        expect(remaining).toEqual([`${id("pX")}/c`, `${id("qa")}/c`, `${id("r")}/c`, `${id("r\\\\")}/c`]);
      });
    });
  });

  describe("non-serializable values", () => {
    it("saveStep rejects with a CheckpointError naming the value path, and writes nothing", async () => {
      await run(async (checkpointer) => {
        const id = ids("nonserializable")();
        await create(checkpointer, id);
        const first = step(id, { superstep: 0, nodeName: "ok", index: 0, values: { fine: 1 } });
        await checkpointer.saveStep(first);
        const before = await checkpointer.getWorkflow(id);
        await sleep(5);

        const bad = step(id, { superstep: 1, nodeName: "embed", index: 1, values: { doc: { meta: [1, 2, () => 3] } } });
        const error = await rejection(checkpointer.saveStep(bad));
        assertCheckpointError(error);
        expect(error._tag).toBe("CheckpointError");
        expect(error.path).toContain("doc.meta[2]");
        expect(error.workflowId).toBe(id);
        expect(error.nodeName).toBe("embed");
        expect(error.message).toContain("doc.meta[2]");

        // Replacing an existing step with a bad value keeps the old step.
        const badUpsert = step(id, { superstep: 0, nodeName: "ok", index: 0, values: { fine: new WeakMap() } });
        assertCheckpointError(await rejection(checkpointer.saveStep(badUpsert)));
        const circular: Record<string, unknown> = {};
        circular["self"] = circular;
        assertCheckpointError(
          await rejection(
            checkpointer.saveStep(step(id, { superstep: 2, nodeName: "loop", index: 2, values: { circular } })),
          ),
        );

        expect(await checkpointer.getSteps(id)).toStrictEqual([first]);
        expect(await checkpointer.getWorkflow(id)).toStrictEqual(before);
      });
    });

    it("saveSteps (when the adapter has it) writes a batch in order, or nothing when one value is bad", async () => {
      await run(async (checkpointer) => {
        if (checkpointer.saveSteps === undefined) return;
        const id = ids("batch")();
        await create(checkpointer, id);
        const lease = await checkpointer.claimWorkflow(id, { owner: "batcher", ttlMs: 10_000 });
        const good = [0, 1, 2].map((i) => step(id, { superstep: i, nodeName: `n${i}`, index: i, values: { v: i } }));
        await checkpointer.saveSteps(good, { epoch: lease.epoch });
        expect(await checkpointer.getSteps(id)).toStrictEqual(good);
        expect((await checkpointer.getWorkflow(id))?.stepCount).toBe(3);
        const mixed = [
          step(id, { superstep: 3, nodeName: "n3", index: 3, values: { v: 3 } }),
          step(id, { superstep: 4, nodeName: "n4", index: 4, values: { f: () => 1 } }),
        ];
        assertCheckpointError(await rejection(checkpointer.saveSteps(mixed, { epoch: lease.epoch })));
        assertConflictError(
          await rejection(
            checkpointer.saveSteps([step(id, { superstep: 5, nodeName: "n5", index: 5, values: {} })], {
              epoch: lease.epoch + 1,
            }),
          ),
        );
        expect(await checkpointer.getSteps(id)).toStrictEqual(good);
      });
    });

    it("updateWorkflow rejects a non-serializable pause value and changes nothing", async () => {
      await run(async (checkpointer) => {
        const id = ids("nonserializable-pause")();
        await create(checkpointer, id);
        const before = await checkpointer.getWorkflow(id);
        const error = await rejection(
          checkpointer.updateWorkflow(id, {
            status: "paused",
            pause: { nodeName: "ask", value: { callback: () => 1 }, responseKey: "answer" },
          }),
        );
        assertCheckpointError(error);
        expect(error.path).toContain("callback");
        expect(await checkpointer.getWorkflow(id)).toStrictEqual(before);
      });
    });

    it("rejects malformed input with CheckpointError", async () => {
      await run(async (checkpointer) => {
        const id = ids("malformed")();
        await create(checkpointer, id);
        assertCheckpointError(
          await rejection(
            checkpointer.saveStep({ ...step(id, { superstep: 0, nodeName: "n", index: 0 }), superstep: "x" as never }),
          ),
        );
        assertCheckpointError(
          await rejection(
            checkpointer.saveStep({ ...step(id, { superstep: 0, nodeName: "n", index: 0 }), values: null as never }),
          ),
        );
        assertCheckpointError(await rejection(checkpointer.createWorkflow({ id: "", graphName: "g", graphHash: "h" })));
        assertCheckpointError(await rejection(checkpointer.claimWorkflow(id, { owner: "", ttlMs: 1000 })));
        assertCheckpointError(await rejection(checkpointer.claimWorkflow(id, { owner: "me", ttlMs: -1 })));
        expect(await checkpointer.getSteps(id)).toEqual([]);
      });
    });
  });

  describe("leases", () => {
    it("claim grants a lease with an epoch; the same owner renews and keeps the epoch", async () => {
      await run(async (checkpointer) => {
        const id = ids("claim")();
        await create(checkpointer, id);
        const before = Date.now();
        const lease = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 10_000 });
        expect(lease).toMatchObject({ workflowId: id, owner: "a" });
        expect(Number.isInteger(lease.epoch)).toBe(true);
        expect(lease.expiresAt.getTime()).toBeGreaterThanOrEqual(before + 10_000 - 1000);
        expect((await checkpointer.getWorkflow(id))?.lease).toEqual(lease);

        await sleep(5);
        const renewed = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 20_000 });
        expect(renewed.epoch).toBe(lease.epoch);
        expect(renewed.expiresAt.getTime()).toBeGreaterThan(lease.expiresAt.getTime());
      });
    });

    it("another owner gets WorkflowConflictError while the lease is live", async () => {
      await run(async (checkpointer) => {
        const id = ids("conflict")();
        await create(checkpointer, id);
        const lease = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 10_000 });
        const error = await rejection(checkpointer.claimWorkflow(id, { owner: "b", ttlMs: 10_000 }));
        assertConflictError(error);
        expect(error._tag).toBe("WorkflowConflictError");
        expect(error.workflowId).toBe(id);
        expect(error.heldBy).toBe("a");
        expect(error.expiresAt?.getTime()).toBe(lease.expiresAt.getTime());
        expect((await checkpointer.getWorkflow(id))?.lease?.owner).toBe("a");
      });
    });

    it("exactly one of two concurrent claims wins", async () => {
      await run(async (checkpointer) => {
        const id = ids("race")();
        await create(checkpointer, id);
        const results = await Promise.allSettled(
          ["a", "b", "c"].map((owner) => checkpointer.claimWorkflow(id, { owner, ttlMs: 10_000 })),
        );
        const won = results.filter((result) => result.status === "fulfilled");
        expect(won).toHaveLength(1);
        for (const result of results) if (result.status === "rejected") assertConflictError(result.reason);
      });
    });

    it("an expired lease can be claimed by another owner with a higher epoch", async () => {
      await run(async (checkpointer) => {
        const id = ids("expired")();
        await create(checkpointer, id);
        const first = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 50 });
        await sleep(80);
        const second = await checkpointer.claimWorkflow(id, { owner: "b", ttlMs: 10_000 });
        expect(second.owner).toBe("b");
        expect(second.epoch).toBeGreaterThan(first.epoch);
      });
    });

    it("the holder re-claiming just after expiry (nobody claimed in between) keeps its epoch", async () => {
      await run(async (checkpointer) => {
        const id = ids("lapsed")();
        await create(checkpointer, id);
        const first = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 30 });
        await sleep(60);
        const again = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 10_000 });
        expect(again.epoch).toBe(first.epoch);
        await checkpointer.saveStep(step(id, { superstep: 0, nodeName: "n", index: 0, values: { v: 1 } }), {
          epoch: first.epoch,
        });
        expect((await checkpointer.getSteps(id)).length).toBe(1);
      });
    });

    it("writes with a stale fence are rejected with WorkflowConflictError and write nothing", async () => {
      await run(async (checkpointer) => {
        const id = ids("fence")();
        await create(checkpointer, id);
        const first = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 50 });
        await checkpointer.saveStep(step(id, { superstep: 0, nodeName: "n", index: 0, values: { v: 1 } }), {
          epoch: first.epoch,
        });
        await sleep(80);
        const second = await checkpointer.claimWorkflow(id, { owner: "b", ttlMs: 10_000 });
        const before = await checkpointer.getWorkflow(id);

        const stale = { epoch: first.epoch };
        assertConflictError(
          await rejection(
            checkpointer.saveStep(step(id, { superstep: 1, nodeName: "n", index: 1, values: { v: 2 } }), stale),
          ),
        );
        assertConflictError(
          await rejection(
            checkpointer.saveStep(step(id, { superstep: 0, nodeName: "n", index: 0, values: { v: 9 } }), stale),
          ),
        );
        assertConflictError(await rejection(checkpointer.updateWorkflow(id, { status: "completed" }, stale)));
        expect(await checkpointer.getState(id)).toEqual({ v: 1 });
        expect(await checkpointer.getWorkflow(id)).toStrictEqual(before);

        // The current holder's fence works.
        await checkpointer.saveStep(step(id, { superstep: 1, nodeName: "n", index: 1, values: { v: 2 } }), {
          epoch: second.epoch,
        });
        const updated = await checkpointer.updateWorkflow(id, { status: "completed" }, { epoch: second.epoch });
        expect(updated.status).toBe("completed");
        expect(await checkpointer.getState(id)).toEqual({ v: 2 });
      });
    });

    it("release by a stale epoch is ignored; release by the holder frees the workflow", async () => {
      await run(async (checkpointer) => {
        const id = ids("release")();
        await create(checkpointer, id);
        const first = await checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 50 });
        await sleep(80);
        const second = await checkpointer.claimWorkflow(id, { owner: "b", ttlMs: 10_000 });

        await checkpointer.releaseWorkflow(id, { owner: "a", epoch: first.epoch });
        await checkpointer.releaseWorkflow(id, { owner: "c", epoch: second.epoch });
        expect((await checkpointer.getWorkflow(id))?.lease).toMatchObject({ owner: "b", epoch: second.epoch });
        assertConflictError(await rejection(checkpointer.claimWorkflow(id, { owner: "c", ttlMs: 10_000 })));

        await checkpointer.releaseWorkflow(id, { owner: "b", epoch: second.epoch });
        expect((await checkpointer.getWorkflow(id))?.lease).toBeUndefined();
        const third = await checkpointer.claimWorkflow(id, { owner: "c", ttlMs: 10_000 });
        expect(third.epoch).toBeGreaterThan(second.epoch);
        // b's fence is stale now.
        assertConflictError(
          await rejection(
            checkpointer.saveStep(step(id, { superstep: 0, nodeName: "n", index: 0 }), { epoch: second.epoch }),
          ),
        );
      });
    });
  });

  describe("unknown workflow ids", () => {
    it("getters return undefined or empty; writers throw CheckpointError", async () => {
      await run(async (checkpointer) => {
        const id = ids("unknown")();
        expect(await checkpointer.getWorkflow(id)).toBeUndefined();
        expect(await checkpointer.getSteps(id)).toEqual([]);
        expect(await checkpointer.getState(id)).toEqual({});
        expect(await checkpointer.getCheckpoint(id)).toBeUndefined();
        expect(await checkpointer.getCheckpoint(id, { superstep: 3 })).toBeUndefined();

        const save = await rejection(checkpointer.saveStep(step(id, { superstep: 0, nodeName: "n", index: 0 })));
        assertCheckpointError(save);
        expect(save.workflowId).toBe(id);
        assertCheckpointError(await rejection(checkpointer.updateWorkflow(id, { status: "completed" })));
        assertCheckpointError(await rejection(checkpointer.claimWorkflow(id, { owner: "a", ttlMs: 1000 })));
        // Releasing or deleting what does not exist is a no-op.
        await checkpointer.releaseWorkflow(id, { owner: "a", epoch: 1 });
        await checkpointer.deleteWorkflow(id);
        expect(await checkpointer.getWorkflow(id)).toBeUndefined();
      });
    });
  });

  describe("ids", () => {
    const odd = [
      `it's "quoted"`,
      "'; DROP TABLE x; --",
      "100% done",
      "under_score",
      "back\\slash\\",
      "ünïcødé 日本語 🚀",
      "new\nline\ttab",
      "  spaces  ",
      "$1 ? :name @p",
      "x".repeat(300),
    ];

    it("stores and finds odd ids, node names and value keys verbatim", { timeout: SLOW }, async () => {
      await run(async (checkpointer) => {
        const id = ids("odd");
        for (const [i, raw] of odd.entries()) {
          const workflowId = id(raw);
          const created = await create(checkpointer, workflowId);
          expect(created.id).toBe(workflowId);
          await checkpointer.saveStep(
            step(workflowId, { superstep: 0, nodeName: raw, index: i, values: { [raw]: raw } }),
          );
          const workflow = await checkpointer.getWorkflow(workflowId);
          expect(workflow?.id).toBe(workflowId);
          expect(workflow?.stepCount).toBe(1);
          const [loaded] = await checkpointer.getSteps(workflowId);
          expect(loaded?.nodeName).toBe(raw);
          expect(await checkpointer.getState(workflowId)).toEqual({ [raw]: raw });
          const lease = await checkpointer.claimWorkflow(workflowId, { owner: raw, ttlMs: 10_000 });
          expect(lease.owner).toBe(raw);
        }
        const listed = (await listAll(checkpointer, { limit: 4 }))
          .map((workflow) => workflow.id)
          .filter((x) => x.startsWith(id()));
        expect(listed.sort()).toEqual(odd.map((raw) => id(raw)).sort());
        // None of them matched anything else, and deleting them one by one leaves the rest.
        await checkpointer.deleteWorkflow(id(odd[2]!));
        expect(await checkpointer.getWorkflow(id(odd[3]!))).toBeDefined();
        expect(await checkpointer.getWorkflow(id(odd[2]!))).toBeUndefined();
      });
    });
  });

  describe("storage growth", () => {
    it("stores at most 1 KB per trivial step", { timeout: SLOW }, async () => {
      await run(async (checkpointer) => {
        const id = ids("growth")();
        await create(checkpointer, id);
        const bytesBefore = options.storageBytes === undefined ? 0 : await options.storageBytes(checkpointer);
        const count = 1000;
        for (let i = 0; i < count; i++) {
          await checkpointer.saveStep(
            step(id, { superstep: i, nodeName: `node${i % 10}`, index: i, values: { n: i } }),
          );
        }
        const steps = await checkpointer.getSteps(id);
        expect(steps).toHaveLength(count);
        const bytes =
          options.storageBytes === undefined
            ? Buffer.byteLength(JSON.stringify(steps))
            : (await options.storageBytes(checkpointer)) - bytesBefore;
        expect(bytes / count).toBeLessThanOrEqual(1024);
      });
    });
  });
}
