/**
 * `run(graph, { workflowId, waitForLease })` on a real adapter, after a real crash: a child process runs a workflow,
 * stores its first step and is SIGKILLed inside the second, so its lease stays until it expires. The test process
 * then resumes the workflow:
 *
 * - with a wait shorter than what is left of the lease, the run fails with `WorkflowConflictError` naming the dead
 *   holder, having told no event about the workflow's nodes and written nothing;
 * - with `waitForLease: true`, it waits the lease out, then resumes — `first` replayed, `second` run — and every
 *   `NodeEnd` comes after the dead lease expired (the replayed one is told only once the claim succeeded).
 */
import type { Checkpointer } from "@graph/checkpoint";
import { type GraphEvent, Runner } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import type { HolderSpec } from "./holderChild.js";
import { holderGraph } from "./holderGraph.js";
import type { DescribeCheckpointerOptions } from "./options.js";
import { adapterRef, spawnScript } from "./processes.js";
import { storedTree, treeChanges } from "./tree.js";

/** The holder's lease: long enough that a short wait surely ends before it, short enough to wait out. */
const HOLDER_TTL_MS = 6_000;

/** Events about the workflow's nodes (what a resume must not tell before it holds the lease). */
const NODE_EVENTS = new Set(["NodeStart", "NodeEnd", "RouteDecision", "CheckpointSaved"]);

export function describeWaitForLease(options: DescribeCheckpointerOptions): void {
  const child = options.engine?.childProcess;
  if (child === undefined) {
    throw new Error(
      `describeWaitForLease('${options.name}') needs engine.childProcess: the crashed holder is a real process.`,
    );
  }
  describe(`waitForLease after a SIGKILLed holder: ${options.name}`, () => {
    it("a short wait fails naming the dead holder, telling and writing nothing; waitForLease: true waits the lease out and resumes", {
      timeout: 90_000,
    }, async () => {
      const workflowId = `wait-for-lease-${process.pid}-${Date.now()}`;
      const spec: HolderSpec = { adapter: adapterRef(child), workflowId, leaseTtlMs: HOLDER_TTL_MS };
      const holder = spawnScript<{ readonly type: string }, never>(child, "holderChild", spec);
      try {
        const said = await holder.next();
        expect(said, holder.stderr()).toEqual({ type: "holding" });
      } finally {
        holder.kill();
      }
      expect((await holder.exit).signal).toBe("SIGKILL");

      const checkpointer: Checkpointer = await options.create({});
      const calls = { first: 0, second: 0 };
      const graph = holderGraph({
        first: () => void calls.first++,
        second: async (x) => {
          calls.second++;
          return x * 10;
        },
      });
      const events: GraphEvent[] = [];
      const runner = new Runner({ checkpointer, eventProcessors: [{ onEvent: (e) => void events.push(e) }] });
      try {
        const crashed = await checkpointer.getWorkflow(workflowId);
        expect(crashed?.status).toBe("running");
        expect(crashed?.lease?.owner).toBe(`holder-${holder.pid}`);
        expect((await checkpointer.getSteps(workflowId)).map((s) => [s.nodeName, s.status])).toEqual([
          ["first", "completed"],
        ]);
        const deadLease = crashed!.lease!;
        const before = await storedTree(checkpointer, workflowId);

        await expect(runner.run(graph, { workflowId, waitForLease: 300 })).rejects.toMatchObject({
          _tag: "WorkflowConflictError",
          reason: "lease-held",
          heldBy: deadLease.owner,
          workflowId,
        });
        expect(events.filter((e) => NODE_EVENTS.has(e.type))).toEqual([]);
        expect(calls).toEqual({ first: 0, second: 0 });
        expect(treeChanges(before, await storedTree(checkpointer, workflowId))).toEqual([]);
        expect(Date.now()).toBeLessThan(deadLease.expiresAt.getTime());

        const result = await runner.run(graph, { workflowId, waitForLease: true });
        expect(result.status).toBe("completed");
        expect(result.values).toEqual({ x: 2, y: 20 });
        expect(calls).toEqual({ first: 0, second: 1 });
        const ends = events.filter((e) => e.type === "NodeEnd");
        expect(ends.map((e) => [e.nodeName, e.replayed])).toEqual([
          ["first", true],
          ["second", false],
        ]);
        for (const e of events.filter((e) => NODE_EVENTS.has(e.type)))
          expect(e.timestamp, `${e.type} told before the dead lease expired`).toBeGreaterThanOrEqual(
            deadLease.expiresAt.getTime(),
          );
        const done = await checkpointer.getWorkflow(workflowId);
        expect(done?.status).toBe("completed");
        expect(done?.lease).toBeUndefined();
        expect((await checkpointer.getSteps(workflowId)).map((s) => [s.nodeName, s.status])).toEqual([
          ["first", "completed"],
          ["second", "completed"],
        ]);
      } finally {
        await runner.close();
      }
    });

    it("an upgrade hook that claims the workflow before the run waits out the dead lease too (waitForLease: true)", {
      timeout: 90_000,
    }, async () => {
      const workflowId = `wait-for-lease-upgrade-${process.pid}-${Date.now()}`;
      const spec: HolderSpec = { adapter: adapterRef(child), workflowId, leaseTtlMs: HOLDER_TTL_MS };
      const holder = spawnScript<{ readonly type: string }, never>(child, "holderChild", spec);
      try {
        expect(await holder.next(), holder.stderr()).toEqual({ type: "holding" });
      } finally {
        holder.kill();
      }
      await holder.exit;
      const checkpointer: Checkpointer = await options.create({});
      const calls = { first: 0, second: 0 };
      const graph = holderGraph({
        first: () => void calls.first++,
        second: async (x) => {
          calls.second++;
          return x * 10;
        },
      });
      // What @graph/upgrade's hook does before a run on another version: claim the workflow, write, give it back.
      const prepared: number[] = [];
      const runner = new Runner({
        checkpointer,
        upgrade: {
          prepare: async (context) => {
            const lease = await context.checkpointer.claimWorkflow(context.workflowId, {
              owner: "upgrade-hook",
              ttlMs: 5_000,
            });
            prepared.push(Date.now());
            await context.checkpointer.releaseWorkflow(context.workflowId, lease);
          },
        },
      });
      try {
        const deadLease = (await checkpointer.getWorkflow(workflowId))!.lease!;
        await expect(runner.run(graph, { workflowId })).rejects.toMatchObject({
          _tag: "WorkflowConflictError",
          reason: "lease-held",
          heldBy: deadLease.owner,
        });
        const result = await runner.run(graph, { workflowId, waitForLease: true });
        expect(result.status).toBe("completed");
        expect(result.values).toEqual({ x: 2, y: 20 });
        expect(calls).toEqual({ first: 0, second: 1 });
        expect(prepared).toHaveLength(1);
        expect(prepared[0]).toBeGreaterThanOrEqual(deadLease.expiresAt.getTime());
      } finally {
        await runner.close();
      }
    });
  });
}
