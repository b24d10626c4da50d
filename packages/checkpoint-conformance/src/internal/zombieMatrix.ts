/**
 * The zombie matrix (with `engine.childProcess`): a child process runs the zombie workflow (`leaseGraphs.ts`: a
 * nested graph whose `prep` node is followed by a 3-item map) under a 600 ms lease and is frozen with `SIGSTOP`
 * inside `prep` (a node of the nested graph) or inside the map items, with durability `sync` and `async`. Past its
 * lease the test process takes the workflow over and finishes it, reads the whole stored tree (every workflow
 * `<root>/…`, records and rows), and wakes the zombie (`SIGCONT`). The zombie must write nothing more: the tree read
 * after it died equals the one read right after the takeover — no step, no status, no child workflow record — and
 * its run fails with `LeaseLostError`.
 *
 * With `async`, a frozen `prep` wakes with its step queued rather than written, and goes straight on to create the
 * map items' workflows: the point where an unfenced `createWorkflow` left empty child records behind.
 */
import type { Durability } from "@graph/checkpoint";
import { Runner, type RunResult } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import { SLOW, tagOf } from "./engineCommon.js";
import { ids, sleep } from "./fixtures.js";
import { openStorage } from "./handles.js";
import type { LeaseChildSpec } from "./leaseChild.js";
import { ZOMBIE_TOTAL, ZOMBIE_VALUES, zombieGraph } from "./leaseGraphs.js";
import type { DescribeCheckpointerOptions } from "./options.js";
import { adapterRef, type ChildProcessOptions, spawnScript } from "./processes.js";
import { storedTree, treeChanges } from "./tree.js";

const TIMING = { leaseTtlMs: 600, leaseRenewIntervalMs: 150, stopPollIntervalMs: 150 } as const;
const POINTS: readonly NonNullable<LeaseChildSpec["freezeIn"]>[] = ["nested", "item"];
const MODES: readonly Durability[] = ["sync", "async"];

type Message = { readonly type: string } & Record<string, unknown>;

/** Registers the zombie matrix: one test per freeze point and durability. */
export function describeZombieMatrix(options: DescribeCheckpointerOptions, child: ChildProcessOptions): void {
  const adapter = adapterRef(child);

  async function trial(freezeIn: "nested" | "item", durability: Durability): Promise<void> {
    const rootId = ids(`zombie-${freezeIn}-${durability}`)();
    const where = `zombie frozen in ${freezeIn === "nested" ? "the nested graph" : "a map item"} (${durability})`;
    const spec: LeaseChildSpec = {
      role: "zombie",
      adapter,
      workflowId: rootId,
      trials: 1,
      freezeIn,
      durability,
      ...TIMING,
    };
    const zombie = spawnScript<Message, never>(child, "leaseChild", spec);
    const storage = await openStorage(options);
    try {
      const parked = await zombie.next();
      if (parked.type !== "parked")
        throw new Error(`${where}: expected 'parked', got ${JSON.stringify(parked)}\n${zombie.stderr()}`);
      process.kill(zombie.pid!, "SIGSTOP");
      const probe = await storage.open("sync");
      await sleep(TIMING.leaseTtlMs + 300);
      const rescuer = new Runner({ checkpointer: await storage.open(durability), owner: "rescuer" });
      let result: RunResult | undefined;
      try {
        for (let attempt = 0; attempt < 50 && result === undefined; attempt++) {
          try {
            // force: the same graph, compiled by this process's loader (its hash covers the functions' source).
            result = await rescuer.run(
              zombieGraph(async () => {}),
              { workflowId: rootId, values: ZOMBIE_VALUES, force: true },
            );
          } catch (error) {
            if (tagOf(error) !== "WorkflowConflictError") throw error;
            await sleep(100);
          }
        }
      } finally {
        await rescuer.close();
      }
      expect(result?.status, `${where}: the rescuer completes the workflow`).toBe("completed");
      expect(result?.values["total"]).toBe(ZOMBIE_TOTAL);
      const taken = await storedTree(probe, rootId);
      expect(taken.map((w) => [w.id.slice(rootId.length), w.workflow?.status])).toStrictEqual([
        ["", "completed"],
        ["/inner", "completed"],
        ...[0, 1, 2].map((i) => [`/inner/items/${i}`, "completed"]),
      ]);
      process.kill(zombie.pid!, "SIGCONT");
      const done = await zombie.next();
      await zombie.exit;
      expect(treeChanges(taken, await storedTree(probe, rootId)).join("\n"), `${where}: writes by the zombie`).toBe("");
      expect(await storedTree(probe, rootId), `${where}: the stored tree`).toStrictEqual(taken);
      expect(done["tag"], `${where}: the zombie's run (${String(done["message"] ?? done["status"])})`).toBe(
        "LeaseLostError",
      );
    } finally {
      try {
        if (zombie.pid !== undefined) process.kill(zombie.pid, "SIGCONT");
      } catch {
        /* already gone */
      }
      zombie.kill();
      await storage.close();
    }
  }

  describe("zombie matrix", () => {
    for (const freezeIn of POINTS) {
      for (const durability of MODES) {
        it(
          `zombie matrix: frozen (SIGSTOP past its lease) inside ${freezeIn === "nested" ? "a nested graph" : "a map item"}, durability ${durability}, taken over, woken: 0 writes after the takeover`,
          {
            timeout: SLOW,
          },
          () => trial(freezeIn, durability),
        );
      }
    }
  });
}
