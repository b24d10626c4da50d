// Zombie (issue test 3): a worker frozen (SIGSTOP) past its lease and its BullMQ lock; another worker adopts the run
// and finishes it; thawed (SIGCONT), the first worker's run aborts with LeaseLostError (its lease renewal fails with
// "lease-lost") and writes nothing: the stored steps after it exited are exactly the ones after the takeover.
import { Runner } from "@graph/runtime";
import { afterAll, describe, expect, it } from "vitest";
import { RemoteRunner } from "../src/index.js";
import { type TestEnv, testEnv } from "./fixtures/env.js";
import { chain10 } from "./fixtures/graphs.mjs";
import { logFile, readLog, startWorker, type WorkerProcess } from "./fixtures/processes.js";

let env: TestEnv | undefined;
let remote: RemoteRunner | undefined;
let workers: WorkerProcess[] = [];

afterAll(async () => {
  await remote?.close();
  for (const w of workers) if (w.child.signalCode === null && w.child.exitCode === null) w.child.kill("SIGCONT");
  await Promise.all(workers.map((w) => w.kill()));
  await env?.dispose();
});

const nodes = [...chain10.nodes.keys()];

describe("a frozen worker past its lease and lock", () => {
  it("another worker adopts the run; thawed, the first aborts with LeaseLostError and writes nothing", async () => {
    env = await testEnv("redis");
    const log = logFile("zombie");
    const lease = { LEASE_TTL_MS: "1500", LOCK_MS: "1500" };
    const zombie = await startWorker({ ...env.workerEnv, ...lease, LOG_FILE: log, HOLD_AT: "n4" });
    workers = [zombie];
    remote = new RemoteRunner(env.submitter);
    const handle = remote.start(chain10, { values: { x: 4, tag: "z" }, workflowId: "zombie-1" });
    await zombie.next((m) => m.type === "node-start" && m.tag === "z");
    const epochBefore = (await env.checkpointer.getWorkflow("zombie-1"))!.lease!.epoch;
    zombie.child.kill("SIGSTOP");
    const adopter = await startWorker({ ...env.workerEnv, ...lease, LOG_FILE: log });
    workers.push(adopter);
    // The adopter takes the job once the lock expired and the run once the lease expired, and finishes it.
    const result = await handle.result;
    const clean = await new Runner().run(chain10, { values: { x: 4, tag: "z" } });
    expect(result.status).toBe("completed");
    expect(result.values).toEqual(clean.values);
    const afterTakeover = await env.checkpointer.getSteps("zombie-1", { includeInputs: true });
    const adopted = (await env.checkpointer.getWorkflow("zombie-1"))!;
    expect(adopted.status).toBe("completed");
    zombie.child.kill("SIGCONT");
    zombie.child.send({ type: "go" });
    const abort = await zombie.next((m) => m.type === "node-abort" && m.tag === "z");
    expect(abort.reason).toBe("LeaseLostError");
    expect(abort.cause).toBe("lease-lost");
    // Closing waits for the zombie's run to end: every write it would make has been tried once it exited.
    await zombie.close();
    expect(await env.checkpointer.getSteps("zombie-1", { includeInputs: true })).toEqual(afterTakeover);
    // Nor did it touch the workflow record (status, lease, counts, updatedAt): its claim was superseded.
    expect(await env.checkpointer.getWorkflow("zombie-1")).toEqual(adopted);
    expect(adopted.lease === undefined || adopted.lease.epoch > epochBefore).toBe(true);
    const steps = afterTakeover.filter((s) => s.kind !== "input");
    const keys = steps.map((s) => `${s.superstep}/${s.nodeName}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(steps.map((s) => s.nodeName).sort()).toEqual([...nodes].sort());
    // n0–n3 ran on the zombie, n4 on both (the zombie's finished after the takeover; its step was refused), the rest
    // on the adopter.
    const lines = readLog(log).filter((l) => l.tag === "z");
    const by = (pid: number) => lines.filter((l) => l.pid === pid).map((l) => l.node);
    expect(by(zombie.pid)).toEqual(["n0", "n1", "n2", "n3", "n4"]);
    expect(by(adopter.pid)).toEqual(["n4", "n5", "n6", "n7", "n8", "n9"]);
  }, 60_000);
});
