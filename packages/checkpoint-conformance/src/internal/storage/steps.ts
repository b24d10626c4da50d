/** Storage conformance, area "steps": Step round trips, upserts, ordering, history cuts, isolation. */
import { END_DECISION, INPUT_STEP } from "@graph/checkpoint";
import { describe, expect, it } from "vitest";
import { ids, step } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";
import { create, richValues } from "./helpers.js";

/** Registers the "steps" tests. */
export function describeSteps({ run }: StorageContext): void {
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
}
