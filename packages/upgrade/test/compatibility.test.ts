import { MemoryCheckpointer } from "@graph/checkpoint";
import { END, Graph, interrupt, node, route } from "@graph/core";
import { Runner } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  checkCompatibility,
  checkWorkflows,
  diffGraphs,
  graphStructure,
  UPGRADE_STEP,
  upgradable,
  upgrades,
} from "../src/index.js";
import { planExecute } from "./support/planExecute.js";
import { v1, v2Changed, v2NoApproval } from "./support/post.js";

const count = node({ name: "count", output: "n" }, ({ text }: { text: string }) => String(text.length));
const check = route({ name: "check", targets: ["ask", END] }, ({ n }: { n: string }) => (n === "0" ? END : "ask"));
const ask = interrupt({ name: "ask", input: "n", response: "answer" });
const reply = node(
  { name: "reply", output: "out" },
  ({ n, answer }: { n: string; answer: string }) => `${n}:${answer}`,
);
const base = () => new Graph([count, check, ask, reply], { name: "typed" });

async function pausedOn(graph: Graph, values: Record<string, unknown>) {
  const checkpointer = new MemoryCheckpointer();
  const runner = new Runner({ checkpointer, upgrade: upgrades(), closeCheckpointer: false });
  const paused = await runner.run(graph, { workflowId: "w", values });
  expect(paused.status).toBe("paused");
  await runner.close();
  return checkpointer;
}

describe("diffGraphs", () => {
  it("lists changed, added and removed nodes, value changes and gate targets, from graphs or stored structures", () => {
    const after = new Graph(
      [
        count,
        route({ name: "check", targets: ["review", END] }, ({ n }: { n: string }) => (n === "0" ? END : "review")),
        interrupt({ name: "review", input: "n", response: "answer" }),
        node({ name: "reply", output: ["out", "extra"] }, ({ n, answer }: { n: string; answer: string }) => [
          n,
          answer,
        ]),
      ],
      { name: "typed" },
    );
    expect(diffGraphs(graphStructure(base()), after)).toEqual([
      { kind: "node-changed", node: "check", nodeKind: "gate", kindChanged: false },
      { kind: "gate-targets-changed", node: "check", added: ["review"], removed: ["ask"] },
      { kind: "node-added", node: "review", nodeKind: "interrupt" },
      { kind: "node-changed", node: "reply", nodeKind: "function", kindChanged: false },
      { kind: "value-added", node: "reply", value: "extra" },
      { kind: "node-removed", node: "ask", nodeKind: "interrupt", outputs: ["answer"] },
    ]);
    expect(diffGraphs(base(), base())).toEqual([]);
  });
});

describe("checkCompatibility: the cases the four scenarios don't cover", () => {
  it("a value whose type changed (from the stored value against the new schema): blocked, then fixed by a transform", async () => {
    const checkpointer = await pausedOn(upgradable(base(), { label: "v1" }), { text: "abc" });
    const typed = (migrate: boolean) =>
      upgradable(
        new Graph(
          [
            node({ name: "count", output: "n", outputSchema: z.number() }, ({ text }: { text: string }) => text.length),
            route({ name: "check", targets: ["ask", END] }, ({ n }: { n: number }) => (n === 0 ? END : "ask")),
            interrupt({ name: "ask", input: "n", response: "answer" }),
            node(
              { name: "reply", inputs: { n: z.number(), answer: z.string() }, output: "out" },
              ({ n, answer }: { n: number; answer: string }) => `${n + 1}:${answer}`,
            ),
          ],
          { name: "typed" },
        ),
        { label: "v2", migrations: migrate ? [{ from: "v1", transform: { n: (old) => Number(old) } }] : [] },
      );
    const blocked = await checkCompatibility(checkpointer, "w", typed(false));
    expect(blocked?.verdict).toBe("blocked");
    expect(blocked?.blockers).toEqual([
      `the stored 'n' (a string "3") does not fit the output schema of node 'count' (Invalid input: expected number, received string): its type changed. Add a migration { from: "v1", transform: { n: (old) => … } }.`,
      `the stored 'n' (a string "3") does not fit the input schema of node 'reply' (Invalid input: expected number, received string): its type changed. Add a migration { from: "v1", transform: { n: (old) => … } }.`,
    ]);
    const v2 = typed(true);
    expect((await checkCompatibility(checkpointer, "w", v2))?.verdict).toBe("resumable-with-migration");
    const runner = new Runner({ checkpointer, upgrade: upgrades() });
    const done = await runner.run(v2, { workflowId: "w", values: { answer: "yes" } });
    expect(done.values["out"]).toBe("4:yes");
    expect(done.values["n"]).toBe(3);
    await runner.close();
  });

  it("static types: a changed output schema is a value-type-changed change, checked against the stored value", async () => {
    const typedCount = (schema: z.ZodType, fn: (text: string) => unknown) =>
      node({ name: "count", output: "n", outputSchema: schema }, ({ text }: { text: string }) => fn(text));
    const hold = interrupt({ name: "hold", input: "n", response: "go" });
    const checkpointer = await pausedOn(
      upgradable(new Graph([typedCount(z.string(), (t) => String(t.length)), hold], { name: "static" }), {
        label: "v1",
      }),
      { text: "abcd" },
    );
    const v2 = upgradable(new Graph([typedCount(z.number(), (t) => t.length), hold], { name: "static" }), {
      label: "v2",
    });
    const report = await checkCompatibility(checkpointer, "w", v2);
    expect(report?.changes).toContainEqual({
      kind: "value-type-changed",
      node: "count",
      value: "n",
      port: "output",
      before: expect.objectContaining({ type: "string" }),
      after: expect.objectContaining({ type: "number" }),
    });
    expect(report?.reasons).toContain(
      "the type of 'n' (output of node 'count') changed from string to number; the stored value does not fit it (see below).",
    );
    expect(report?.verdict).toBe("blocked");
    // A widened type the stored value still fits is only a note.
    const wide = upgradable(
      new Graph([typedCount(z.union([z.string(), z.number()]), (t) => t.length), hold], { name: "static" }),
      { label: "v3" },
    );
    const widened = await checkCompatibility(checkpointer, "w", wide);
    expect(widened?.verdict).toBe("resumable");
    expect(widened?.reasons[1]).toMatch(
      /^the type of 'n' \(output of node 'count'\) changed from .* the stored value fits the new type\.$/,
    );
  });

  it("a pause moved to a renamed interrupt: the migration moves it, the answer goes to the new one", async () => {
    const checkpointer = await pausedOn(v1(), { topic: "cats" });
    const moved = upgradable(
      new Graph(
        [
          ...[...v1().nodes.values()].filter((n) => n.name === "plan" || n.name === "write"),
          interrupt({ name: "review", input: "draft", response: "verdict" }),
          node(
            { name: "publish", output: "post" },
            ({ draft, verdict }: { draft: string; verdict: string }) => `${draft} (${verdict})`,
          ),
        ],
        { name: "post" },
      ),
      { label: "v2", migrations: [{ from: "v1", pause: { approve: "review" } }] },
    );
    const report = await checkCompatibility(checkpointer, "w", moved);
    expect(report?.verdict).toBe("resumable-with-migration");
    expect(report?.migration).toEqual(["move the pause 'approve' → 'review'"]);
    const runner = new Runner({ checkpointer, upgrade: upgrades() });
    // The old answer key is refused now: the pending pause is 'review', waiting for 'verdict'.
    await expect(runner.run(moved, { workflowId: "w", values: { decision: "ok" } })).rejects.toMatchObject({
      _tag: "UnknownValueError",
    });
    const done = await runner.run(moved, { workflowId: "w", values: { verdict: "fine" } });
    expect(done.status).toBe("completed");
    expect(done.values["post"]).toBe("draft: outline of cats (fine)");
    await runner.close();
  });

  it("a pause moved behind a gate whose stored decision names the removed interrupt: blocked", async () => {
    const checkpointer = await pausedOn(upgradable(base(), { label: "v1" }), { text: "abc" });
    const moved = upgradable(
      new Graph(
        [
          count,
          route({ name: "check", targets: ["review", END] }, ({ n }: { n: string }) => (n === "0" ? END : "review")),
          interrupt({ name: "review", input: "n", response: "answer" }),
          reply,
        ],
        { name: "typed" },
      ),
      { label: "v2", migrations: [{ from: "v1", pause: { ask: "review" } }] },
    );
    const report = await checkCompatibility(checkpointer, "w", moved);
    expect(report?.verdict).toBe("blocked");
    expect(report?.blockers).toEqual([
      "gate 'check' decided 'ask', which the new version removed from its targets. Finish the workflow on the old code.",
    ]);
  });

  it("a nested graph changed under its paused child run: blocked; a pause moved to a non-interrupt: blocked", async () => {
    const stored = planExecute({ approval: true });
    const checkpointer = await pausedOn(stored.graph, { objective: "q" });
    expect((await checkpointer.getWorkflow("w"))?.pause?.nodeName).toBe("executor/approveStep");
    const nested = await checkCompatibility(
      checkpointer,
      "w",
      planExecute({ approval: true, editedReplanner: true }).graph,
    );
    expect(nested?.verdict).toBe("blocked");
    expect(nested?.blockers).toEqual([
      "nested graph 'executor' changed while its child workflow is unfinished (paused): its stored steps belong to the old nested graph. Finish the workflow on the old code or start a new one.",
    ]);

    const post = await pausedOn(v1(), { topic: "cats" });
    const wrong = upgradable(v2NoApproval(false), {
      label: "v2",
      migrations: [{ from: "v1", pause: { approve: "publish" } }],
    });
    expect((await checkCompatibility(post, "w", wrong))?.blockers).toEqual([
      "the migration moves the pause at 'approve' to 'publish', which is not an interrupt of the new version (it has none).",
    ]);
  });

  it("a workflow whose graph structure was never stored is blocked, saying why and what to do", async () => {
    const checkpointer = new MemoryCheckpointer();
    const runner = new Runner({ checkpointer, closeCheckpointer: false }); // no upgrades(): no structure
    await runner.run(v1(), { workflowId: "old", values: { topic: "cats" } });
    await runner.close();
    const report = await checkCompatibility(checkpointer, "old", v2Changed());
    expect(report?.verdict).toBe("blocked");
    expect(report?.blockers[0]).toContain("was not stored (the workflow was created by a runner without upgrades()");
    expect(await checkCompatibility(checkpointer, "missing", v2Changed())).toBeUndefined();
  });

  it("force: true skips the check and the migration (the caller's own call), as without the hook", async () => {
    const checkpointer = await pausedOn(v1(), { topic: "cats" });
    const runner = new Runner({ checkpointer, upgrade: upgrades() });
    const v2 = v2NoApproval(false);
    await expect(runner.run(v2, { workflowId: "w", values: {} })).rejects.toMatchObject({
      _tag: "UpgradeBlockedError",
    });
    const forced = await runner.run(v2, { workflowId: "w", values: {}, force: true });
    expect(forced.values["post"]).toBe("draft: outline of cats [auto]");
    expect((await checkpointer.getSteps("w")).some((s) => s.nodeName === UPGRADE_STEP)).toBe(false);
    await runner.close();
  });

  it("checkWorkflows: unfinished workflows of the graph's name only, with a summary", async () => {
    const checkpointer = new MemoryCheckpointer();
    const runner = new Runner({ checkpointer, upgrade: upgrades(), closeCheckpointer: false });
    await runner.run(v1(), { workflowId: "p1", values: { topic: "a" } });
    await runner.run(v1(), { workflowId: "p2", values: { topic: "b" } });
    await runner.run(v1(), { workflowId: "p2", values: { decision: "ok" } }); // completed: not listed
    await runner.run(base(), { workflowId: "other", values: { text: "x" } }); // another graph
    await runner.close();
    const report = await checkWorkflows(checkpointer, v2NoApproval(false));
    expect(report.workflows.map((w) => [w.workflowId, w.verdict])).toEqual([["p1", "blocked"]]);
    expect(report.otherGraphs).toBe(1);
    expect(report.summary).toEqual({ resumable: 0, "resumable-with-migration": 0, blocked: 1 });
  });
});
