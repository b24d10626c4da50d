// Kill the demo with SIGKILL mid-run (during the mapped research, then during drafting), resume it, and compare
// with an uninterrupted run: same final answer, and no finished step ran twice.
import path from "node:path";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
import { describe, expect, it } from "vitest";
import {
  completedSteps,
  expectSuccess,
  HIGH_RISK_TICKET,
  readTrace,
  relative,
  runDemo,
  startDemo,
  type TraceEvent,
  tempDir,
  waitUntil,
} from "./helpers.js";

/** `<workflow>:<node>` keys of nodes that really finished (not replayed) in these events. */
function finished(events: readonly TraceEvent[], root: string): Set<string> {
  return new Set(
    events
      .filter((e) => e.type === "NodeEnd" && !e.replayed)
      .map((e) => `${relative(e.workflowId, root)}:${e.nodeName}`),
  );
}
function started(events: readonly TraceEvent[], root: string): Set<string> {
  return new Set(
    events.filter((e) => e.type === "NodeStart").map((e) => `${relative(e.workflowId, root)}:${e.nodeName}`),
  );
}
function executions(events: readonly TraceEvent[], root: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of events)
    if (e.type === "NodeEnd" && !e.replayed)
      out[`${relative(e.workflowId, root)}:${e.nodeName}`] =
        (out[`${relative(e.workflowId, root)}:${e.nodeName}`] ?? 0) + 1;
  return out;
}

describe("crash and resume (SQLite, SIGKILL)", () => {
  it("resumes after SIGKILL during research and during drafting: same answer, finished steps not re-run", async () => {
    // The reference: one uninterrupted run.
    const refDir = tempDir("reference");
    const refTrace = path.join(refDir, "trace.jsonl");
    expectSuccess(
      await runDemo([
        "--ticket",
        HIGH_RISK_TICKET,
        "--id",
        "reference",
        "--approve",
        "--data",
        refDir,
        "--delay-ms",
        "2",
        "--trace",
        refTrace,
      ]),
    );
    const refStore = new SqliteCheckpointer({ path: path.join(refDir, "demo.db") });
    const expectedAnswer = (await refStore.getState("reference"))["resolution"];
    const expectedSteps = await completedSteps(refStore, "reference");
    await refStore.close();
    expect(expectedAnswer).toMatchObject({ outcome: "sent", approvedBy: "--approve" });
    const expectedExecutions = executions(readTrace(refTrace), "reference");
    expect(expectedExecutions["<root>:draft"]).toBe(1);
    expect(expectedExecutions["<root>/research/0:read"]).toBe(1);

    const dir = tempDir("crash");
    const traces = [1, 2, 3].map((i) => path.join(dir, `trace-${i}.jsonl`));
    const slow = ["--data", dir, "--delay-ms", "100"];

    // 1. Killed while the research sub-graph is mapped over the documents: some items done, others in flight.
    const run1 = startDemo([
      "--ticket",
      HIGH_RISK_TICKET,
      "--id",
      "crashy",
      "--approve",
      ...slow,
      "--trace",
      traces[0]!,
    ]);
    await waitUntil(
      () => readTrace(traces[0]!).some((e) => e.type === "MapProgress" && e.completed! >= 1),
      () => `research progress in run 1; output so far:\n${run1.stdout()}`,
    );
    run1.child.kill("SIGKILL");
    const end1 = await run1.done;
    expect(end1.signal).toBe("SIGKILL");
    const t1 = readTrace(traces[0]!);
    expect(t1.some((e) => e.type === "NodeEnd" && e.nodeName === "research")).toBe(false); // really mid-map

    // 2. Resumed, then killed again while the reply is being streamed.
    const run2 = startDemo(["--resume", "crashy", "--approve", ...slow, "--trace", traces[1]!]);
    await waitUntil(
      () => readTrace(traces[1]!).some((e) => e.type === "StreamingChunk" && e.nodeName === "draft"),
      () => `draft streaming in run 2; output so far:\n${run2.stdout()}`,
    );
    await new Promise((r) => setTimeout(r, 150));
    run2.child.kill("SIGKILL");
    const end2 = await run2.done;
    expect(end2.signal).toBe("SIGKILL");
    // (If run 1's lease had not expired yet, run 2 said so and waited for it: "is still leased by the process…".)
    const t2 = readTrace(traces[1]!);
    expect(t2.some((e) => e.type === "NodeEnd" && e.nodeName === "draft" && !e.replayed)).toBe(false); // really mid-draft
    // Items of the map that finished in run 1 were reused, not run again.
    const doneInRun1 = [...finished(t1, "crashy")].filter((k) => k.startsWith("<root>/research/"));
    expect(doneInRun1.length).toBeGreaterThan(0);
    for (const key of doneInRun1) {
      expect(
        t2.some(
          (e) => e.type === "NodeEnd" && e.replayed && `${relative(e.workflowId, "crashy")}:${e.nodeName}` === key,
        ),
      ).toBe(true);
    }

    // 3. Resumed to the end (it pauses for approval; --approve answers).
    const end3 = expectSuccess(
      await runDemo(["--resume", "crashy", "--approve", "--data", dir, "--delay-ms", "2", "--trace", traces[2]!]),
    );
    expect(end3.stdout).toContain("Resuming crashy · ");
    expect(end3.stdout).toContain("✔ Reply sent · approved by --approve");
    const t3 = readTrace(traces[2]!);

    // Same final answer as the uninterrupted run.
    const store = new SqliteCheckpointer({ path: path.join(dir, "demo.db") });
    try {
      expect((await store.getWorkflow("crashy"))?.status).toBe("completed");
      expect((await store.getState("crashy"))["resolution"]).toEqual(expectedAnswer);
      // The step history holds exactly one completed step per node execution, like the uninterrupted run.
      expect(await completedSteps(store, "crashy")).toEqual(expectedSteps);
    } finally {
      await store.close();
    }

    // Nothing that finished in an earlier process started again in a later one…
    const runs = [t1, t2, t3];
    for (let i = 0; i < runs.length; i++) {
      for (let j = i + 1; j < runs.length; j++) {
        const rerun = [...finished(runs[i]!, "crashy")].filter((k) => started(runs[j]!, "crashy").has(k));
        expect(rerun, `finished in run ${i + 1}, started again in run ${j + 1}`).toEqual([]);
      }
    }
    // …and across the three processes every node finished exactly as often as in the uninterrupted run.
    expect(executions([...t1, ...t2, ...t3], "crashy")).toEqual(expectedExecutions);
  }, 180_000);
});
