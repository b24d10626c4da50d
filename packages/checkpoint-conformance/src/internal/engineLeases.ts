/**
 * Engine lease tests with real processes (registered with `engine.childProcess`):
 *
 * - **Cross-process stop.** A holder process runs long workflows one after another; a second process calls
 *   `runner.stop(workflowId)` on each. The latency from that call to the node's signal aborting, over the trials,
 *   must stay below one lease renewal interval at p99.
 * - **Runtime zombie.** A process runs a workflow with a nested graph and a 3-item map under a short lease and is
 *   frozen (SIGSTOP) while the items run; past its lease the test process resumes the workflow and finishes it;
 *   then the zombie is woken (SIGCONT). It must write nothing more — every stored row of the root and of each child
 *   workflow stays exactly as the rescuer left it — and its run must fail with `LeaseLostError`.
 */
import type { Checkpointer } from "@graph/checkpoint";
import { Runner } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import { ids, sleep } from "./fixtures.js";
import { openStorage } from "./handles.js";
import type { LeaseChildSpec } from "./leaseChild.js";
import { waitGraph, ZOMBIE_TOTAL, ZOMBIE_VALUES, zombieGraph } from "./leaseGraphs.js";
import type { DescribeCheckpointerOptions } from "./options.js";
import { adapterRef, type ChildProcessOptions, spawnScript } from "./processes.js";

const SLOW = 180_000;
/** Stop test lease: generous, so a loaded machine keeps the latency well below one renewal. */
const STOP_TIMING = { leaseTtlMs: 9_000, leaseRenewIntervalMs: 3_000, stopPollIntervalMs: 250 } as const;
const STOP_TRIALS = 12;
/** Zombie lease: short, so the test waits little past it. */
const ZOMBIE_TIMING = { leaseTtlMs: 600, leaseRenewIntervalMs: 150, stopPollIntervalMs: 150 } as const;

type Message = { readonly type: string } & Record<string, unknown>;

async function expectMessage(next: () => Promise<Message>, type: string): Promise<Message> {
  const m = await next();
  if (m.type !== type) throw new Error(`expected '${type}' from the child, got ${JSON.stringify(m)}`);
  return m;
}

/** Every stored row of the zombie workflow tree, for exact comparison. */
async function rows(cp: Checkpointer, rootId: string) {
  const tree = [rootId, `${rootId}/inner`, ...[0, 1, 2].map((i) => `${rootId}/inner/items/${i}`)];
  return Promise.all(
    tree.map(async (id) => ({
      id,
      workflow: await cp.getWorkflow(id),
      steps: await cp.getSteps(id, { includeInputs: true }),
    })),
  );
}

/** In-process, on every adapter: one Runner stops the run of another Runner on the same storage. */
export function describeInProcessStop(options: DescribeCheckpointerOptions): void {
  it("runner.stop from another Runner on the same storage stops a running workflow within one stop poll", {
    timeout: SLOW,
  }, async () => {
    const storage = await openStorage(options);
    try {
      const timing = { ...STOP_TIMING, stopPollIntervalMs: 100 };
      const holder = new Runner({ checkpointer: await storage.open("sync"), owner: "holder", ...timing });
      const stopper = new Runner({ checkpointer: await storage.open("sync"), owner: "stopper", ...timing });
      const latencies: number[] = [];
      for (let i = 0; i < 5; i++) {
        const workflowId = ids("istop")(String(i));
        let started!: () => void;
        const running = new Promise<void>((resolve) => (started = resolve));
        let abortedAt = 0;
        const result = holder.run(
          waitGraph(started, () => void (abortedAt = Date.now())),
          { workflowId },
        );
        await running;
        const calledAt = Date.now();
        expect(await stopper.stop(workflowId, { by: "stopper" })).toBe(true);
        expect((await result).status).toBe("stopped");
        latencies.push(abortedAt - calledAt);
        const wf = await (await storage.open("sync")).getWorkflow(workflowId);
        expect(wf?.status).toBe("stopped");
        expect(wf?.stopRequested).toBeUndefined();
      }
      expect(Math.max(...latencies), `latencies (ms): ${latencies.join(", ")}`).toBeLessThan(
        STOP_TIMING.leaseRenewIntervalMs,
      );
      await holder.close();
      await stopper.close();
    } finally {
      await storage.close();
    }
  });
}

export function describeEngineLeases(options: DescribeCheckpointerOptions, child: ChildProcessOptions): void {
  const adapter = adapterRef(child);
  const spec = (role: LeaseChildSpec["role"], workflowId: string, timing: typeof STOP_TIMING | typeof ZOMBIE_TIMING) =>
    ({ role, adapter, workflowId, trials: STOP_TRIALS, ...timing }) satisfies LeaseChildSpec;

  describe("leases across processes", () => {
    it(`runner.stop from another process stops a running workflow: p99 latency < one renewal interval (${STOP_TRIALS} trials)`, {
      timeout: SLOW,
    }, async () => {
      const base = ids("xstop")();
      const holder = spawnScript<Message, never>(child, "leaseChild", spec("hold", base, STOP_TIMING));
      const stopper = spawnScript<Message, { workflowId: string }>(
        child,
        "leaseChild",
        spec("stopper", base, STOP_TIMING),
      );
      try {
        await expectMessage(stopper.next, "ready");
        const latencies: number[] = [];
        for (let i = 0; i < STOP_TRIALS; i++) {
          const started = await expectMessage(holder.next, "started");
          const workflowId = started["workflowId"] as string;
          stopper.send({ workflowId });
          const called = await expectMessage(stopper.next, "stop-called");
          expect(called["found"]).toBe(true);
          const stopped = await expectMessage(holder.next, "stopped");
          expect(stopped["workflowId"]).toBe(workflowId);
          expect(stopped["status"]).toBe("stopped");
          latencies.push((stopped["abortedAt"] as number) - (called["at"] as number));
        }
        latencies.sort((a, b) => a - b);
        const p99 = latencies[Math.min(latencies.length - 1, Math.ceil(latencies.length * 0.99) - 1)]!;
        expect(p99, `cross-process stop latency (ms), sorted: ${latencies.join(", ")}`).toBeLessThan(
          STOP_TIMING.leaseRenewIntervalMs,
        );
        const storage = await openStorage(options);
        try {
          const cp = await storage.open("sync");
          const wf = await cp.getWorkflow(`${base}-0`);
          expect(wf?.status).toBe("stopped");
          expect(wf?.stopRequested).toBeUndefined();
        } finally {
          await storage.close();
        }
      } finally {
        holder.kill();
        stopper.kill();
      }
    });

    it("a frozen holder (SIGSTOP past its lease) of a workflow with a nested graph and a 3-item map writes nothing after the takeover and fails with LeaseLostError", {
      timeout: SLOW,
    }, async () => {
      const rootId = ids("rzombie")();
      const zombie = spawnScript<Message, never>(child, "leaseChild", spec("zombie", rootId, ZOMBIE_TIMING));
      const storage = await openStorage(options);
      try {
        await expectMessage(zombie.next, "parked");
        process.kill(zombie.pid!, "SIGSTOP");
        const cp = await storage.open("sync");
        // Wait out the zombie's lease, then take the workflow over and finish it.
        await sleep(ZOMBIE_TIMING.leaseTtlMs + 300);
        const rescuer = new Runner({ checkpointer: await storage.open("sync"), owner: "rescuer" });
        let result: Awaited<ReturnType<Runner["run"]>> | undefined;
        for (let attempt = 0; attempt < 50 && result === undefined; attempt++) {
          try {
            // force: the same graph, but compiled by this process's loader (its hash covers the functions' source).
            result = await rescuer.run(
              zombieGraph(async () => {}),
              {
                workflowId: rootId,
                values: ZOMBIE_VALUES,
                force: true,
              },
            );
          } catch (error) {
            // The lease may still look live on a slow clock: try again shortly.
            if ((error as { _tag?: string })._tag !== "WorkflowConflictError") throw error;
            await sleep(100);
          }
        }
        expect(result?.status).toBe("completed");
        expect(result?.values["total"]).toBe(ZOMBIE_TOTAL);
        await rescuer.close();
        const before = await rows(cp, rootId);
        expect(before[0]!.workflow?.status).toBe("completed");
        expect(before.slice(2).every((r) => r.steps.length > 0)).toBe(true);
        process.kill(zombie.pid!, "SIGCONT");
        const done = await expectMessage(zombie.next, "done");
        expect(done["tag"], String(done["message"])).toBe("LeaseLostError");
        expect(String(done["message"])).toContain(rootId);
        await zombie.exit;
        expect(await rows(cp, rootId)).toStrictEqual(before);
      } finally {
        if (zombie.pid !== undefined) {
          try {
            process.kill(zombie.pid, "SIGCONT");
          } catch {
            /* already gone */
          }
        }
        zombie.kill();
        await storage.close();
      }
    });
  });
}
