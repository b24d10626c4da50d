import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { scriptCommand } from "@graph/checkpoint-conformance";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresCheckpointer } from "../src/index.js";
import { DATABASE_URL, dropSchemas, randomSchema, requirePostgres } from "./fixtures/server.js";

const schema = randomSchema("storm");
const appName = `graph_storm_${Math.random().toString(36).slice(2, 10)}`;
beforeAll(requirePostgres);
afterAll(() => dropSchemas([schema]));
const childModule = fileURLToPath(new URL("./fixtures/stormChild.ts", import.meta.url));
const COUNT = 40;

describe("PostgreSQL backends terminated in a loop (pg_terminate_backend) while runs are under way", () => {
  it("the process survives, the hit runs fail with tagged errors, every workflow resumes to the exact result", {
    timeout: 240_000,
  }, async () => {
    const command = scriptCommand(childModule);
    const child = fork(command.script, [schema, appName, String(COUNT)], {
      execArgv: [...command.execArgv],
      env: { ...process.env, DATABASE_URL },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("exit", (code, signal) => resolve({ code, signal })),
    );
    const next = <T>(type: string) =>
      Promise.race([
        new Promise<T>((resolve) => {
          const on = (m: { type: string }) => {
            if (m.type !== type) return;
            child.off("message", on);
            resolve(m as T);
          };
          child.on("message", on);
        }),
        exited.then((e) => {
          throw new Error(`the child process died (${JSON.stringify(e)}) while waiting for '${type}'`);
        }),
      ]);
    await next("ready");
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    admin.on("error", () => undefined);
    await admin.connect();
    let storming = true;
    let terminated = 0;
    const storm = (async () => {
      while (storming) {
        const { rows } = await admin.query(
          "SELECT pg_terminate_backend(pid) AS t FROM pg_stat_activity WHERE application_name = $1",
          [appName],
        );
        terminated += rows.filter((r) => r.t === true).length;
        await new Promise((r) => setTimeout(r, 1));
      }
    })();
    child.send({ type: "go" });
    let stormed: { tags: Record<string, string> };
    try {
      stormed = await next<{ tags: Record<string, string> }>("stormed");
    } finally {
      storming = false;
      await storm;
      await admin.end();
    }
    child.send({ type: "resume" });
    const { results } = await next<{ results: Record<string, unknown> }>("resumed");
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(terminated).toBeGreaterThan(0);
    // Every run either completed or failed with a tagged error (never an untagged one).
    const tags = Object.values(stormed.tags);
    expect(tags.length).toBe(COUNT);
    for (const tag of tags)
      expect(["completed", "CheckpointError", "LeaseLostError", "WorkflowConflictError"]).toContain(tag);
    expect(tags.filter((t) => t !== "completed").length).toBeGreaterThan(0);
    // Then an exact resume: every workflow ends with e = seed + 5, each node's step stored once.
    expect(Object.values(results)).toEqual(Array.from({ length: COUNT }, () => 6));
    const cp = new PostgresCheckpointer({ connectionString: DATABASE_URL, schema });
    try {
      for (let i = 0; i < COUNT; i++) {
        const steps = await cp.getSteps(`storm-${i}`);
        const completed = steps.filter((s) => s.status === "completed").map((s) => s.nodeName);
        expect(completed.sort(), `storm-${i}`).toEqual(["s1", "s2", "s3", "s4", "s5"]);
        expect((await cp.getWorkflow(`storm-${i}`))?.status).toBe("completed");
      }
    } finally {
      await cp.close();
    }
  });
});
