import { fork } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isCheckpointError } from "@graph/checkpoint";
import { rejection, scriptCommand } from "@graph/checkpoint-conformance";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresCheckpointer } from "../src/index.js";
import { admin, DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

// A zombie frozen INSIDE an open transaction holding the workflow row lock (the conformance kit freezes its
// zombies between writes). Without server-side timeouts the next holder waited forever behind it.
const holderScript = fileURLToPath(new URL("./fixtures/frozenHolder.ts", import.meta.url));
const schemas: string[] = [];
const dirs: string[] = [];
beforeAll(requirePostgres);
afterAll(async () => {
  await dropSchemas(schemas);
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Starts a holder that freezes inside a transaction on the root's row (or, `"serializer"`, in its serializer during
 * requestStop), and waits until it is frozen.
 */
async function frozenHolder(idleInTransactionTimeoutMs: number, where: "transaction" | "serializer" = "transaction") {
  const schema = randomSchema("zombie");
  schemas.push(schema);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-zombie-"));
  dirs.push(dir);
  const rootId = `zombie-${path.basename(dir)}`;
  const seed = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema });
  await seed.createWorkflow({ id: rootId, graphName: "g", graphHash: "h" });
  await seed.createWorkflow({ id: `${rootId}/inner`, graphName: "g", graphHash: "h", parentId: rootId });
  await seed.close();
  const command = scriptCommand(holderScript);
  const child = fork(command.script, [schema, rootId, dir, String(idleInTransactionTimeoutMs), where], {
    execArgv: [...command.execArgv],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let output = "";
  child.stderr?.on("data", (chunk: Buffer) => void (output += chunk.toString()));
  const report = new Promise<Record<string, string>>((resolve, reject) => {
    child.once("message", (message) => resolve(message as Record<string, string>));
    child.once("exit", (code) => reject(new Error(`the holder exited (${code}) without a report: ${output}`)));
  });
  report.catch(() => undefined);
  await until(() => fs.existsSync(path.join(dir, "frozen")) || child.exitCode !== null, 30_000);
  if (!fs.existsSync(path.join(dir, "frozen"))) throw new Error(`the holder did not freeze: ${output}`);
  // Frozen like a SIGSTOPped process: the transaction is open, the row locked, the holder silent.
  child.kill("SIGSTOP");
  const locks = await admin<{ n: string }>(
    "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'graph-checkpointer runner' AND state = 'idle in transaction'",
  );
  if (where === "transaction") expect(Number(locks[0]?.n)).toBeGreaterThanOrEqual(1);
  // Locks held on this schema's tables (other tests may run transactions on the server meanwhile).
  const held = await admin<{ n: string }>(
    `SELECT count(*) AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
       JOIN pg_namespace ns ON ns.oid = c.relnamespace WHERE ns.nspname = '${schema}'`,
  );
  return {
    schemaLocks: Number(held[0]?.n),
    schema,
    rootId,
    thaw: () => {
      fs.writeFileSync(path.join(dir, "thaw"), "");
      child.kill("SIGCONT");
    },
    report,
    kill: () => child.kill("SIGKILL"),
  };
}

describe("a holder frozen inside an open transaction (PostgreSQL)", () => {
  it("the server ends the frozen transaction: the new holder claims within a bounded time, and the zombie then writes nothing and cannot renew", {
    timeout: 60_000,
  }, async () => {
    const holder = await frozenHolder(2_000);
    const rescuer = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema: holder.schema });
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_100)); // past the zombie's 1 s lease
      const started = Date.now();
      const lease = await rescuer.claimWorkflow(holder.rootId, { owner: "rescuer", ttlMs: 60_000 });
      const waited = Date.now() - started;
      // Bounded by the zombie's idle-in-transaction timeout (2 s), well under the rescuer's lock timeout (10 s).
      expect(waited).toBeLessThan(9_000);
      expect(lease.epoch).toBe(2);
      await rescuer.saveStep(
        {
          workflowId: holder.rootId,
          superstep: 1,
          nodeName: "rescuer",
          index: 1,
          status: "completed",
          inputVersions: {},
          values: { by: "rescuer" },
          truncated: false,
          startedAt: new Date(0),
          completedAt: new Date(0),
        },
        { epoch: lease.epoch },
      );
      await rescuer.updateWorkflow(holder.rootId, { status: "completed" }, { epoch: lease.epoch });
      await rescuer.releaseWorkflow(holder.rootId, lease);
      holder.thaw();
      const report = await holder.report;
      expect(report["stop"]).toBe("CheckpointError"); // its transaction was ended by the server
      expect(report["write"]).toBe("WorkflowConflictError:stale-fence");
      expect(report["child"]).toBe("WorkflowConflictError:stale-fence");
      expect(report["renewal"]).toBe("WorkflowConflictError:lease-lost");
      const steps = await rescuer.getSteps(holder.rootId);
      expect(steps.map((s) => [s.superstep, s.nodeName, s.values])).toEqual([
        [0, "zombie", { by: "zombie" }],
        [1, "rescuer", { by: "rescuer" }],
      ]);
      expect(await rescuer.getSteps(`${holder.rootId}/inner`)).toEqual([]);
      const record = await rescuer.getWorkflow(holder.rootId);
      expect(record?.status).toBe("completed");
      expect(record?.stopRequested).toBeUndefined();
    } finally {
      holder.kill();
      await rescuer.close();
    }
  });

  it("without an idle timeout on the holder, a waiting claim fails within lockTimeoutMs with a CheckpointError naming it", {
    timeout: 60_000,
  }, async () => {
    const holder = await frozenHolder(0);
    const rescuer = new PostgresCheckpointer({
      connectionString: DATABASE_URL,
      schema: holder.schema,
      timeouts: { lockTimeoutMs: 1_000 },
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const started = Date.now();
      const error = await rejection(rescuer.claimWorkflow(holder.rootId, { owner: "rescuer", ttlMs: 60_000 }));
      expect(Date.now() - started).toBeLessThan(8_000);
      expect(isCheckpointError(error)).toBe(true);
      expect((error as Error).message).toContain("timeouts.lockTimeoutMs (1000 ms)");
      expect((error as Error).message).toContain("Nothing was written");
      // The holder is named: the frozen checkpointer's runner connection, idle inside its transaction.
      expect((error as Error).message).toContain("Held by graph-checkpointer runner (pid ");
      expect((error as Error).message).toContain("idle in transaction for ");
    } finally {
      holder.kill();
      await rescuer.close();
    }
  });

  it("the application's serializer never runs inside a transaction: a holder frozen in it (requestStop) locks nothing, and a claim after its lease goes through at once", {
    timeout: 60_000,
  }, async () => {
    const holder = await frozenHolder(5_000, "serializer");
    const rescuer = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema: holder.schema });
    try {
      expect(holder.schemaLocks).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 1_100)); // past the frozen holder's 1 s lease
      const started = Date.now();
      const lease = await rescuer.claimWorkflow(holder.rootId, { owner: "rescuer", ttlMs: 60_000 });
      // No lock to wait for: a claim is one round trip (slack for a loaded machine), far below the 5 s idle timeout.
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(lease.epoch).toBe(2);
      await rescuer.releaseWorkflow(holder.rootId, lease);
    } finally {
      holder.kill();
      await rescuer.close();
    }
  });

  it("rejects invalid timeouts with a CheckpointError naming the option", () => {
    expect(() => new PostgresCheckpointer({ connectionString: DATABASE_URL, timeouts: { lockTimeoutMs: -1 } })).toThrow(
      "timeouts.lockTimeoutMs must be a non-negative integer",
    );
  });
});
