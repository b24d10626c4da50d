// `--workers N`: the tickets run on worker processes through a Redis queue (REDIS_URL, else 127.0.0.1:6379) and
// leave the same steps in the store as an in-process run, pauses and revisions included.
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
import { describe, expect, it } from "vitest";
import { completedSteps, expectSuccess, HIGH_RISK_TICKET, readTrace, runDemo, tempDir } from "./helpers.js";

describe("demo --workers", () => {
  it("runs a ticket with a rejected and an approved draft on 2 worker processes, like in-process", async () => {
    const answers = ["--reject", "--approve", "--delay-ms", "1", "--ticket", HIGH_RISK_TICKET, "--id", "w-1"];
    const local = tempDir("local");
    const remote = tempDir("workers");
    const trace = `${remote}/trace.jsonl`;
    expectSuccess(await runDemo([...answers, "--data", local, "--trace", `${local}/trace.jsonl`]));
    const run = expectSuccess(await runDemo([...answers, "--data", remote, "--workers", "2", "--trace", trace]));
    expect(run.stdout).toMatch(/Running on 2 worker processes \(pids \d+, \d+\)/);
    expect(run.stdout).toContain("workflow w-1 completed");
    const open = (dir: string) => new SqliteCheckpointer({ path: `${dir}/demo.db` });
    const [a, b] = [open(local), open(remote)];
    try {
      expect(await completedSteps(b, "w-1")).toEqual(await completedSteps(a, "w-1"));
      expect((await b.getWorkflow("w-1"))?.status).toBe("completed");
    } finally {
      await a.close();
      await b.close();
    }
    // The events came back through the queue: the same node ends, run ends and pauses as in-process (map items run
    // concurrently, so their order may differ: compared sorted; the root's own order is compared as is).
    const shape = (file: string) =>
      readTrace(file)
        // A run delivered again (its worker looked dead on a loaded machine) replays its finished nodes first.
        .filter((e) => (e.type === "RunEnd" || e.type === "NodeEnd" || e.type === "Paused") && e.replayed !== true)
        .map((e) => `${e.type} ${e.workflowId} ${e.nodeName ?? e.status}`);
    const expected = shape(`${local}/trace.jsonl`);
    expect(expected.filter((l) => l.startsWith("RunEnd w-1 ")).at(-1)).toBe("RunEnd w-1 completed");
    expect([...shape(trace)].sort()).toEqual([...expected].sort());
    const root = (lines: string[]) => lines.filter((l) => l.split(" ")[1] === "w-1");
    expect(root(shape(trace))).toEqual(root(expected));
  });
});
