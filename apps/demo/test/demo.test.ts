// End to end on SQLite: the demo as a real process, its data in a temp directory.
import path from "node:path";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
import { afterAll, describe, expect, it } from "vitest";
import type { Resolution } from "../src/workflow.js";
import { expectSuccess, HIGH_RISK_TICKET, LOW_RISK_TICKET, runDemo, tempDir } from "./helpers.js";

const data = tempDir("sqlite");
const fast = ["--data", data, "--delay-ms", "1"];
const open: SqliteCheckpointer[] = [];
function store(): SqliteCheckpointer {
  const cp = new SqliteCheckpointer({ path: path.join(data, "demo.db") });
  open.push(cp);
  return cp;
}
afterAll(async () => {
  for (const cp of open) await cp.close();
});

describe("demo on SQLite", () => {
  it("with no options and no terminal it runs both sample tickets unattended: one pauses and is resumed, one is auto-approved", async () => {
    const dir = tempDir("samples");
    const { stdout } = expectSuccess(await runDemo(["--data", dir, "--delay-ms", "1"]));
    expect(stdout).toContain("Ticket 1 of 2");
    expect(stdout).toContain("⏸ approval        paused: a high-risk reply needs a human's approval");
    expect(stdout).toContain("approving automatically");
    expect(stdout).toContain("↺ restored");
    expect(stdout).toContain("Ticket 2 of 2");
    expect(stdout).toContain("approved by auto-approve policy");
    expect(stdout.match(/✔ Reply sent/g)).toHaveLength(2);
    // live progress from events: the map progress bar and streamed tokens
    expect(stdout).toMatch(/research\s+█+ 5\/5 documents/);
    expect(stdout).toContain("│ Duplicate charges are detected");
    const cp = new SqliteCheckpointer({ path: path.join(dir, "demo.db") });
    try {
      const { workflows } = await cp.listWorkflows({ rootsOnly: true });
      expect(workflows.map((w) => w.status)).toEqual(["completed", "completed"]);
    } finally {
      await cp.close();
    }
  });

  it("pauses for approval, exits with --detach, and completes on --resume <id> --approve", async () => {
    const first = expectSuccess(await runDemo(["--ticket", HIGH_RISK_TICKET, "--id", "refund-1", "--detach", ...fast]));
    expect(first.stdout).toContain("workflow: refund-1");
    expect(first.stdout).toContain("refund-1 stays paused at the approval");
    const cp = store();
    const paused = await cp.getWorkflow("refund-1");
    expect(paused?.status).toBe("paused");
    expect(paused?.pause).toMatchObject({
      nodeName: "approval",
      responseKey: "decision",
      value: { risk: "high", revision: 1 },
    });

    const listed = expectSuccess(await runDemo(["--list", "--data", data]));
    expect(listed.stdout).toMatch(/refund-1\s+paused at approval/);

    const second = expectSuccess(await runDemo(["--resume", "refund-1", "--approve", ...fast]));
    expect(second.stdout).toContain("Resuming refund-1 · paused at approval");
    expect(second.stdout).toContain(
      "↺ restored        from the checkpoint, not run again: classify, triage→lookup, lookup, research, rank, draft, prepareReview",
    );
    expect(second.stdout).toContain("✔ Reply sent · approved by --approve · first draft");
    expect((await cp.getWorkflow("refund-1"))?.status).toBe("completed");
    const state = await cp.getState("refund-1");
    expect(state["resolution"]).toMatchObject({
      outcome: "sent",
      approvedBy: "--approve",
      revisions: 0,
      sources: ["kb-101", "kb-104", "kb-102"],
    });

    const again = expectSuccess(await runDemo(["--resume", "refund-1", ...fast]));
    expect(again.stdout).toContain("Nothing left to do");
  });

  it("a rejected draft loops back to drafting with the feedback, then completes on approval", async () => {
    const { stdout } = expectSuccess(
      await runDemo([
        "--ticket",
        HIGH_RISK_TICKET,
        "--id",
        "revise-1",
        "--reject",
        "--feedback",
        "shorter please",
        "--approve",
        ...fast,
      ]),
    );
    expect(stdout).toContain('rejected by --reject: "shorter please"');
    expect(stdout).toContain("◆ afterReview     → draft");
    expect(stdout).toContain("draft 2 of at most 3");
    const resolution = (await store().getState("revise-1"))["resolution"] as Resolution;
    expect(resolution).toMatchObject({
      outcome: "sent",
      approvedBy: "--approve",
      revisions: 1,
      sources: ["kb-101", "kb-104", "kb-102"],
    });
    expect(resolution.reply).toContain("(sources: kb-101)"); // "shorter" keeps the best finding only
  });

  it("the revise loop is bounded: a third rejection escalates", async () => {
    const { stdout } = expectSuccess(
      await runDemo(["--ticket", HIGH_RISK_TICKET, "--id", "escalate-1", "--reject", "--reject", "--reject", ...fast]),
    );
    expect(stdout.match(/afterReview {5}→ draft/g)).toHaveLength(2);
    expect(stdout).toContain("◆ afterReview     → escalate");
    expect(stdout).toContain("⇪ Escalated");
    const state = await store().getState("escalate-1");
    expect(state["resolution"]).toMatchObject({ outcome: "escalated", approvedBy: null, revisions: 3 });
  });

  it("a low-risk ticket is auto-approved by the interrupt's handler, even with --detach", async () => {
    const { stdout } = expectSuccess(
      await runDemo(["--ticket", LOW_RISK_TICKET, "--id", "password-1", "--detach", ...fast]),
    );
    expect(stdout).not.toContain("paused");
    expect(stdout).toContain("✔ approval        approved by auto-approve policy");
    expect((await store().getState("password-1"))["resolution"]).toMatchObject({ approvedBy: "auto-approve policy" });
  });

  it("spam is routed to END: nothing is researched or drafted", async () => {
    const { stdout } = expectSuccess(
      await runDemo(["--ticket", "Congratulations WINNER! Click here for free money", "--id", "spam-1", ...fast]),
    );
    expect(stdout).toContain("◆ triage          → END");
    expect(stdout).toContain("Closed as spam");
    expect(stdout).not.toMatch(/[▶✔] research|[▶✔] draft/);
    expect((await store().getWorkflow("spam-1"))?.status).toBe("completed");
  });

  it("--graph prints the Mermaid diagram; bad input gets a clear message", async () => {
    const graph = expectSuccess(await runDemo(["--graph"]));
    expect(graph.stdout).toMatch(/^flowchart TD/);
    expect(graph.stdout).toContain('subgraph n3 ["research (map over documents)"]');
    expect(graph.stdout).toContain('[/"approval"/]');
    const unknown = await runDemo(["--resume", "no-such-workflow", ...fast]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("No workflow 'no-such-workflow'");
    const bad = await runDemo(["--frobnicate"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--help");
  });
});
