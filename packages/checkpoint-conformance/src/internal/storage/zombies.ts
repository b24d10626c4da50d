/**
 * Storage conformance, area "zombies": a holder frozen past its lease while another process takes the workflow over
 * and finishes it writes nothing after the takeover — root and child workflows — and its next renewal fails.
 * Runs in-process on every adapter (the "frozen" holder simply waits) and, for adapters with
 * `engine.childProcess`, with a real child process frozen by SIGSTOP and woken by SIGCONT.
 */
import { fork } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Checkpointer } from "@graph/checkpoint";
import { resolvePolicy } from "@graph/checkpoint";
import { describe, expect, it } from "vitest";
import { ids, sleep } from "../fixtures.js";
import type { ChildProcessOptions } from "../processes.js";
import { adapterRef, childCommand, loadFactory } from "../processes.js";
import type { ZombieWorkflows } from "../zombie.js";
import { finishAsRescuer, renewOutcome, storedRows, writeRound, zombieWorkflows } from "../zombie.js";
import type { ZombieCommand, ZombieSpec } from "../zombieChild.js";
import type { StorageContext } from "./helpers.js";
import { create, SLOW } from "./helpers.js";

const REJECTED = "WorkflowConflictError:stale-fence";
const LOST = "WorkflowConflictError:lease-lost";

async function createTree(checkpointer: Checkpointer, workflows: ZombieWorkflows): Promise<void> {
  await create(checkpointer, workflows.rootId);
  await create(checkpointer, workflows.childIds[0], workflows.rootId);
  await create(checkpointer, workflows.childIds[1], workflows.childIds[0]);
}

/** Waits until the stored lease of `id` has expired (by the clock of the storage's writes, with a margin). */
async function untilExpired(checkpointer: Checkpointer, id: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lease = (await checkpointer.getWorkflow(id))?.lease;
    if (lease === undefined || lease.expiresAt.getTime() + 50 < Date.now()) return;
    if (Date.now() > deadline) throw new Error(`the lease of '${id}' did not expire within ${timeoutMs} ms`);
    await sleep(Math.max(10, Math.min(200, lease.expiresAt.getTime() + 60 - Date.now())));
  }
}

/** The exact rows after the zombie's three rounds (0–2) and the rescuer's round 3. */
function expectFinalRows(rows: Awaited<ReturnType<typeof storedRows>>, workflows: ZombieWorkflows): void {
  const [root, inner, item] = rows;
  const writers = (steps: readonly { readonly values: Readonly<Record<string, unknown>> }[]) =>
    steps.map((s) => Object.values(s.values)[0]);
  expect(root?.workflow?.status).toBe("completed");
  expect(root?.workflow?.lease).toBeUndefined();
  expect(writers(root?.steps ?? [])).toEqual(["zombie-0", "zombie-1", "zombie-2", "rescuer-3"]);
  expect(inner?.workflow?.status).toBe("completed");
  expect(writers(inner?.steps ?? [])).toEqual(["zombie-0", "zombie-1", "zombie-2", "rescuer-3"]);
  expect(item?.workflow?.status).toBe("completed");
  expect(item?.steps.map((s) => `${s.superstep}:${s.nodeName}`)).toEqual(
    [0, 1, 2, 3].flatMap((round) => [`${2 * round}:item`, `${2 * round + 1}:item2`]),
  );
  expect(writers(item?.steps ?? [])).toEqual(
    [0, 1, 2].flatMap((r) => [`zombie-${r}`, `zombie-${r}`]).concat(["rescuer-3", "rescuer-3"]),
  );
  expect(rows.map((r) => r.workflow?.id)).toEqual([workflows.rootId, ...workflows.childIds]);
}

/** The zombie child script next to this area's modules (`.ts` from sources, `.js` once built). */
function zombieScript(): string {
  const here = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
  const ts = path.join(here, "zombieChild.ts");
  return fs.existsSync(ts) ? ts : path.join(here, "zombieChild.js");
}

/** A zombie child process and its IPC. */
function spawnZombie(options: ChildProcessOptions, spec: ZombieSpec) {
  const command = childCommand(options, zombieScript());
  const child = fork(command.script, [JSON.stringify(spec)], {
    execArgv: [...command.execArgv],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    serialization: "json",
  });
  let output = "";
  child.stderr?.on("data", (chunk: Buffer) => void (output += chunk.toString()));
  child.stdout?.on("data", (chunk: Buffer) => void (output += chunk.toString()));
  const inbox: Record<string, unknown>[] = [];
  const waiting: ((message: Record<string, unknown>) => void)[] = [];
  child.on("message", (message) => {
    const waiter = waiting.shift();
    if (waiter !== undefined) waiter(message as Record<string, unknown>);
    else inbox.push(message as Record<string, unknown>);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const next = (): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const queued = inbox.shift();
      if (queued !== undefined) return resolve(queued);
      waiting.push(resolve);
      void exited.then(() => reject(new Error(`the zombie process exited early: ${output}`)));
    });
  const expectMessage = async (type: string) => {
    const message = await next();
    if (message["type"] !== type)
      throw new Error(`expected '${type}' from the zombie, got ${JSON.stringify(message)}: ${output}`);
    return message;
  };
  return {
    command: (command: ZombieCommand) => void child.send(command),
    expectMessage,
    signal: (signal: NodeJS.Signals) => child.kill(signal),
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}

/** Registers the "zombies" tests. */
export function describeZombies({ run, options }: StorageContext): void {
  describe("zombie holders", () => {
    it("in-process: a holder past its lease writes nothing after a takeover (root and children) and cannot renew", async () => {
      await run(async (checkpointer) => {
        const workflows = zombieWorkflows(ids("zombie-local")());
        await createTree(checkpointer, workflows);
        const lease = await checkpointer.claimWorkflow(workflows.rootId, { owner: "zombie", ttlMs: 100 });
        for (let round = 0; round < 3; round++) {
          expect(await writeRound(checkpointer, workflows, "zombie", lease.epoch, round)).toEqual([
            "ok",
            "ok",
            "ok",
            "ok",
          ]);
        }
        await untilExpired(checkpointer, workflows.rootId, 10_000);
        await finishAsRescuer(checkpointer, workflows, "rescuer", 3);
        const after = await storedRows(checkpointer, workflows);
        expect(await writeRound(checkpointer, workflows, "zombie", lease.epoch, 3)).toEqual(Array(4).fill(REJECTED));
        expect(await writeRound(checkpointer, workflows, "zombie", lease.epoch, 4)).toEqual(Array(4).fill(REJECTED));
        expect(await renewOutcome(checkpointer, workflows.rootId, lease, 60_000)).toBe(LOST);
        expect(await storedRows(checkpointer, workflows)).toStrictEqual(after);
        expectFinalRows(after, workflows);
      });
    });

    const child = options.engine?.childProcess;
    if (child === undefined) return;
    it("real processes: a SIGSTOPped holder, woken after another process finished the workflow, writes nothing and cannot renew", {
      timeout: SLOW,
    }, async () => {
      const ref = adapterRef(child);
      const factory = await loadFactory(ref);
      const checkpointer = await factory(ref.args, { policy: resolvePolicy({ durability: "sync" }) });
      const workflows = zombieWorkflows(ids("zombie-process")());
      const ttlMs = 1_500;
      await checkpointer.setup();
      await createTree(checkpointer, workflows);
      const zombie = spawnZombie(child, { adapter: ref, rootId: workflows.rootId, ttlMs });
      try {
        const claimed = await zombie.expectMessage("claimed");
        for (let round = 0; round < 3; round++) {
          zombie.command({ type: "write", round });
          expect((await zombie.expectMessage("wrote"))["outcomes"]).toEqual(["ok", "ok", "ok", "ok"]);
        }
        // Frozen while it waits for its next command: between writes, holding nothing but its lease.
        zombie.signal("SIGSTOP");
        await untilExpired(checkpointer, workflows.rootId, 30_000);
        const rescuerEpoch = await finishAsRescuer(checkpointer, workflows, "rescuer", 3);
        expect(rescuerEpoch).toBeGreaterThan(Number(claimed["epoch"]));
        const after = await storedRows(checkpointer, workflows);
        zombie.signal("SIGCONT");
        zombie.command({ type: "write", round: 3 });
        expect((await zombie.expectMessage("wrote"))["outcomes"]).toEqual(Array(4).fill(REJECTED));
        zombie.command({ type: "write", round: 4 });
        expect((await zombie.expectMessage("wrote"))["outcomes"]).toEqual(Array(4).fill(REJECTED));
        zombie.command({ type: "renew" });
        expect((await zombie.expectMessage("renewed"))["outcome"]).toBe(LOST);
        zombie.command({ type: "exit" });
        await zombie.exited;
        expect(await storedRows(checkpointer, workflows)).toStrictEqual(after);
        expectFinalRows(after, workflows);
      } finally {
        zombie.signal("SIGCONT");
        zombie.kill();
        await checkpointer.close();
      }
    });

    it("real processes: a stop requested by another process reaches the holder at its next renewal (10 rounds)", {
      timeout: SLOW,
    }, async () => {
      const ref = adapterRef(child);
      const checkpointer = await (await loadFactory(ref))(ref.args, { policy: resolvePolicy({ durability: "sync" }) });
      const workflows = zombieWorkflows(ids("stop-process")());
      const everyMs = 200;
      await checkpointer.setup();
      await createTree(checkpointer, workflows);
      const holder = spawnZombie(child, { adapter: ref, rootId: workflows.rootId, ttlMs: 10_000 });
      try {
        const epoch = Number((await holder.expectMessage("claimed"))["epoch"]);
        const latencies: number[] = [];
        for (let round = 0; round < 10; round++) {
          holder.command({ type: "watch", everyMs });
          await sleep(everyMs * 1.5);
          const asked = Date.now();
          const record = await checkpointer.requestStop(workflows.rootId, { info: { round } });
          expect(record?.status).toBe("running");
          const seen = await holder.expectMessage("stop-seen");
          expect(seen["requestedAt"]).toBe(record?.stopRequested?.requestedAt.getTime());
          latencies.push(Number(seen["at"]) - asked);
          // The holder handled it: the flag is cleared under its fence, ready for the next round.
          await checkpointer.updateWorkflow(workflows.rootId, { stopRequested: null }, { epoch });
        }
        latencies.sort((a, b) => a - b);
        // Seen at the next renewal: one interval plus a round trip, with room for a loaded machine.
        expect(latencies[latencies.length - 1]).toBeLessThan(everyMs + 1_500);
        holder.command({ type: "exit" });
        await holder.exited;
      } finally {
        holder.kill();
        await checkpointer.close();
      }
    });
  });
}
