import { MemoryCheckpointer } from "@graph/checkpoint";
import { END, Graph, interrupt, node, route } from "@graph/core";
import { describe, expect, it } from "vitest";
import {
  type GraphEvent,
  IncompatibleRunnerError,
  isIncompatibleRunnerError,
  Runner,
  RunResult,
} from "../src/index.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** An event processor that keeps every event, in order. */
function recorder() {
  const events: GraphEvent[] = [];
  return { events, processor: { onEvent: (e: GraphEvent) => void events.push(e) } };
}

/** `type` plus the node (or gate) the event is about, for compact order assertions. */
function label(e: GraphEvent): string {
  switch (e.type) {
    case "NodeStart":
    case "NodeEnd":
    case "Paused":
    case "StreamingChunk":
      return `${e.type}:${e.nodeName}`;
    case "RunEnd":
      return `RunEnd:${e.status}`;
    default:
      return e.type;
  }
}

/**
 * draft → (approval ∥ research) → publish. `approval` comes before `research` in the node list, so the test also
 * checks that the Paused event waits for the slower sibling regardless of node order.
 */
function postGraph(calls: string[]) {
  const draft = node({ output: "draft" }, function draft({ topic }: { topic: string }) {
    calls.push("draft");
    return `about ${topic}`;
  });
  const approval = interrupt({ name: "approval", input: "draft", response: "decision" });
  const research = node({ output: "notes" }, async function research({ draft }: { draft: string }) {
    calls.push("research:start");
    await sleep(30);
    calls.push("research:end");
    return `notes on ${draft}`;
  });
  const publish = node(
    { output: "published" },
    function publish({ draft, decision, notes }: { draft: string; decision: string; notes: string }) {
      calls.push("publish");
      return `${draft} [${decision}] ${notes}`;
    },
  );
  return new Graph([draft, approval, research, publish], { name: "post" });
}

describe("interrupt: pause", () => {
  it("pauses with human_input info after in-flight siblings finish", async () => {
    const calls: string[] = [];
    const { events, processor } = recorder();
    const runner = new Runner({ eventProcessors: [processor] });
    const r = await runner.run(postGraph(calls), { values: { topic: "cats" } });

    expect(r.status).toBe("paused");
    expect(r.pause).toEqual({
      reason: "human_input",
      nodeName: "approval",
      value: "about cats",
      responseKey: "decision",
    });
    expect(r.error).toBeUndefined();
    // The sibling that was in flight finished and kept its output; nothing after the interrupt ran.
    expect(r.values).toEqual({ draft: "about cats", notes: "notes on about cats" });
    expect(calls).toEqual(["draft", "research:start", "research:end"]);

    const order = events.filter((e) => e.type === "NodeEnd" || e.type === "Paused" || e.type === "RunEnd").map(label);
    expect(order).toEqual(["NodeEnd:draft", "NodeEnd:research", "Paused:approval", "RunEnd:paused"]);
    const paused = events.find((e) => e.type === "Paused");
    expect(paused).toMatchObject({
      type: "Paused",
      reason: "human_input",
      nodeName: "approval",
      value: "about cats",
      responseKey: "decision",
      workflowId: r.workflowId,
      runId: r.runId,
    });
    // The interrupt itself never reports a NodeEnd while paused.
    expect(events.some((e) => e.type === "NodeEnd" && e.nodeName === "approval")).toBe(false);
  });

  it("the paused result serializes its pause info", async () => {
    const r = await new Runner().run(postGraph([]), { values: { topic: "dogs" } });
    expect(r.toJSON()).toMatchObject({
      status: "paused",
      pause: { reason: "human_input", nodeName: "approval", value: "about dogs", responseKey: "decision" },
      values: { draft: "about dogs", notes: "notes on about dogs" },
    });
  });
});

describe("interrupt: resume", () => {
  it("without a checkpointer: re-supply the original inputs plus the answer", async () => {
    const calls: string[] = [];
    const g = postGraph(calls);
    const runner = new Runner();
    const r1 = await runner.run(g, { values: { topic: "cats" } });
    expect(r1.status).toBe("paused");
    const r2 = await runner.run(g, { values: { topic: "cats", [r1.pause!.responseKey]: "approved" } });
    expect(r2.status).toBe("completed");
    expect(r2.pause).toBeUndefined();
    expect(r2.values).toEqual({
      draft: "about cats",
      notes: "notes on about cats",
      decision: "approved",
      published: "about cats [approved] notes on about cats",
    });
    // No store: the second run computes everything again.
    expect(calls).toEqual([
      "draft",
      "research:start",
      "research:end",
      "draft",
      "research:start",
      "research:end",
      "publish",
    ]);
  });

  it("with a checkpointer: only the answer is needed and finished nodes are replayed, not re-run", async () => {
    const calls: string[] = [];
    const g = postGraph(calls);
    const { events, processor } = recorder();
    const runner = new Runner({ checkpointer: new MemoryCheckpointer(), eventProcessors: [processor] });
    const r1 = await runner.run(g, { values: { topic: "cats" }, workflowId: "post-1" });
    expect(r1.status).toBe("paused");
    expect(r1.workflowId).toBe("post-1");
    const firstRunEvents = events.length;

    const r2 = await runner.run(g, { values: { decision: "approved" }, workflowId: "post-1" });
    expect(r2.status).toBe("completed");
    expect(r2.values).toEqual({
      draft: "about cats",
      notes: "notes on about cats",
      decision: "approved",
      published: "about cats [approved] notes on about cats",
    });
    expect(calls).toEqual(["draft", "research:start", "research:end", "publish"]);

    const resumed = events.slice(firstRunEvents);
    const replayed = resumed
      .filter((e) => e.type === "NodeEnd" && e.replayed)
      .map((e) => (e as { nodeName: string }).nodeName);
    expect(replayed.sort()).toEqual(["draft", "research"]);
    const executed = resumed
      .filter((e) => e.type === "NodeEnd" && !e.replayed)
      .map((e) => (e as { nodeName: string }).nodeName);
    expect(executed).toEqual(["approval", "publish"]);
    expect(resumed.some((e) => e.type === "Paused")).toBe(false);
    await runner.close();
  });
});

describe("interrupt: handler", () => {
  const graphWith = (handler: (value: unknown) => unknown, seen: unknown[]) => {
    const draft = node({ output: "draft" }, function draft({ topic }: { topic: string }) {
      return `about ${topic}`;
    });
    const review = interrupt({
      name: "review",
      input: "draft",
      response: "decision",
      handler: (value) => {
        seen.push(value);
        return handler(value);
      },
    });
    const finalize = node(
      { output: "final" },
      function finalize({ draft, decision }: { draft: string; decision: string }) {
        return `${draft}: ${decision}`;
      },
    );
    return new Graph([draft, review, finalize], { name: "handled" });
  };

  it("a sync handler that returns a value answers without pausing", async () => {
    const seen: unknown[] = [];
    const { events, processor } = recorder();
    const r = await new Runner({ eventProcessors: [processor] }).run(
      graphWith(() => "auto-ok", seen),
      { values: { topic: "cats" } },
    );
    expect(r.status).toBe("completed");
    expect(r.pause).toBeUndefined();
    expect(r.values).toEqual({ draft: "about cats", decision: "auto-ok", final: "about cats: auto-ok" });
    expect(seen).toEqual(["about cats"]);
    expect(events.some((e) => e.type === "Paused")).toBe(false);
    expect(events.find((e) => e.type === "NodeEnd" && e.nodeName === "review")).toMatchObject({
      outputs: { decision: "auto-ok" },
    });
  });

  it("an async handler that resolves a value answers without pausing", async () => {
    const seen: unknown[] = [];
    const r = await new Runner().run(
      graphWith(async (v) => {
        await sleep(5);
        return `checked ${String(v)}`;
      }, seen),
      { values: { topic: "cats" } },
    );
    expect(r.status).toBe("completed");
    expect(r.values).toEqual({
      draft: "about cats",
      decision: "checked about cats",
      final: "about cats: checked about cats",
    });
    expect(seen).toEqual(["about cats"]);
  });

  it("a handler returning undefined pauses (sync and async), and the answer then wins over the handler", async () => {
    for (const handler of [() => undefined, async () => undefined]) {
      const seen: unknown[] = [];
      const g = graphWith(handler, seen);
      const runner = new Runner();
      const r1 = await runner.run(g, { values: { topic: "cats" } });
      expect(r1.status).toBe("paused");
      expect(r1.pause).toEqual({
        reason: "human_input",
        nodeName: "review",
        value: "about cats",
        responseKey: "decision",
      });
      expect(r1.values).toEqual({ draft: "about cats" });
      expect(seen).toEqual(["about cats"]);

      const r2 = await runner.run(g, { values: { topic: "cats", decision: "human-ok" } });
      expect(r2.status).toBe("completed");
      expect(r2.values).toEqual({ draft: "about cats", decision: "human-ok", final: "about cats: human-ok" });
      // The supplied answer resolves the interrupt: the handler is not asked again.
      expect(seen).toEqual(["about cats"]);
    }
  });

  it("the handler decides per value (short drafts pass, long ones pause)", async () => {
    const g = graphWith((draft) => (String(draft).length < 20 ? "ok" : undefined), []);
    const runner = new Runner();
    const short = await runner.run(g, { values: { topic: "cats" } });
    expect(short.status).toBe("completed");
    expect(short.values.final).toBe("about cats: ok");
    const long = await runner.run(g, { values: { topic: "a very long topic indeed" } });
    expect(long.status).toBe("paused");
    expect(long.pause?.value).toBe("about a very long topic indeed");
  });

  it("a handler that throws fails the run with the interrupt's name", async () => {
    const boom = new Error("handler broke");
    const r = await new Runner().run(
      graphWith(() => {
        throw boom;
      }, []),
      { values: { topic: "cats" }, errorHandling: "continue" },
    );
    expect(r.status).toBe("failed");
    expect(r.error).toMatchObject({ _tag: "NodeExecutionError", nodeName: "review", cause: boom });
    expect(r.values).toEqual({ draft: "about cats" });
  });
});

describe("interrupt: loops", () => {
  /** write → review (interrupt) → collect → gate → write | END. */
  const loopGraph = (handler?: (value: unknown) => unknown, writes: string[] = []) => {
    const write = node({ output: "draft" }, function write({ feedback }: { feedback: string[] }) {
      const d = `v${feedback.length}`;
      writes.push(d);
      return d;
    });
    const review = interrupt({
      name: "review",
      input: "draft",
      response: "decision",
      ...(handler === undefined ? {} : { handler }),
    });
    const collect = node(
      { output: "feedback" },
      function collect({ feedback, decision }: { feedback: string[]; decision: string }) {
        return [...feedback, decision];
      },
    );
    const gate = route({ targets: ["write", END] }, function gate({ decision }: { decision: string }) {
      return decision === "ok" ? END : "write";
    });
    return new Graph([write, review, collect, gate], { name: "loop" }).bind({ feedback: [] });
  };

  it("every routed visit pauses again; each answer is consumed once", async () => {
    const writes: string[] = [];
    const g = loopGraph(undefined, writes);
    const { events, processor } = recorder();
    const runner = new Runner({ checkpointer: new MemoryCheckpointer(), eventProcessors: [processor] });
    const pauses: unknown[] = [];
    let r = await runner.run(g, { workflowId: "loop-1" });
    for (const answer of ["again", "again", "again"]) {
      expect(r.status).toBe("paused");
      pauses.push(r.pause);
      r = await runner.run(g, { workflowId: "loop-1", values: { decision: answer } });
    }
    expect(r.status).toBe("paused");
    pauses.push(r.pause);
    r = await runner.run(g, { workflowId: "loop-1", values: { decision: "ok" } });

    // Each visit of the interrupt is its own pause: the workflow's last superstep when it paused there.
    expect(pauses).toEqual(
      ["v0", "v1", "v2", "v3"].map((value, i) => ({
        reason: "human_input",
        nodeName: "review",
        value,
        responseKey: "decision",
        visit: 2 + 5 * i,
      })),
    );
    expect(r.status).toBe("completed");
    expect(r.values.feedback).toEqual(["again", "again", "again", "ok"]);
    expect(r.values.decision).toBe("ok");
    expect(writes).toEqual(["v0", "v1", "v2", "v3"]);
    expect(events.filter((e) => e.type === "Paused").map((e) => (e as { value: unknown }).value)).toEqual([
      "v0",
      "v1",
      "v2",
      "v3",
    ]);
    await runner.close();
  });

  it("the handler is asked again on every visit; it can answer some and pause on others", async () => {
    const writes: string[] = [];
    const asked: unknown[] = [];
    const g = loopGraph((draft) => {
      asked.push(draft);
      return draft === "v2" ? undefined : "again";
    }, writes);
    const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
    const r1 = await runner.run(g, { workflowId: "loop-2" });
    expect(r1.status).toBe("paused");
    expect(r1.pause).toEqual({
      reason: "human_input",
      nodeName: "review",
      value: "v2",
      responseKey: "decision",
      visit: 8,
    });
    expect(r1.values.feedback).toEqual(["again", "again"]);
    expect(asked).toEqual(["v0", "v1", "v2"]);

    const r2 = await runner.run(g, { workflowId: "loop-2", values: { decision: "ok" } });
    expect(r2.status).toBe("completed");
    expect(r2.values.feedback).toEqual(["again", "again", "ok"]);
    expect(writes).toEqual(["v0", "v1", "v2"]);
    expect(asked).toEqual(["v0", "v1", "v2"]);
    await runner.close();
  });
});

describe("interrupt: nested graphs", () => {
  /** review = approval(draft) → decision, record(draft, decision) → verdict. */
  const reviewGraph = (calls: string[]) => {
    const approval = interrupt({ name: "approval", input: "draft", response: "decision" });
    const record = node(
      { output: "verdict" },
      function record({ draft, decision }: { draft: string; decision: string }) {
        calls.push("record");
        return `${decision}: ${draft}`;
      },
    );
    return new Graph([approval, record], { name: "review" });
  };
  const outerGraph = (calls: string[]) => {
    const write = node({ output: "draft" }, function write({ topic }: { topic: string }) {
      calls.push("write");
      return `draft about ${topic}`;
    });
    const publish = node(
      { output: "published" },
      function publish({ draft, approved, verdict }: { draft: string; approved: string; verdict: string }) {
        calls.push("publish");
        return `${draft} | ${approved} | ${verdict}`;
      },
    );
    return new Graph([write, reviewGraph(calls).asNode().withOutputs({ decision: "approved" }), publish], {
      name: "outer",
    });
  };

  it("a pause inside a child pauses the parent: path nodeName, outer responseKey, nested paused result", async () => {
    const calls: string[] = [];
    const { events, processor } = recorder();
    const r = await new Runner({ eventProcessors: [processor] }).run(outerGraph(calls), {
      values: { topic: "cats" },
      workflowId: "n0",
    });

    expect(r.status).toBe("paused");
    expect(r.pause).toEqual({
      reason: "human_input",
      nodeName: "review/approval",
      value: "draft about cats",
      responseKey: "approved",
    });
    expect(calls).toEqual(["write"]);

    const nested = r.values.review;
    expect(nested).toBeInstanceOf(RunResult);
    expect(r.get("review")).toBe(nested);
    const child = nested as RunResult;
    expect(child.status).toBe("paused");
    expect(child.workflowId).toBe("n0/review");
    // The child's own pause speaks in the child's names.
    expect(child.pause).toEqual({
      reason: "human_input",
      nodeName: "approval",
      value: "draft about cats",
      responseKey: "decision",
    });
    expect(child.values).toEqual({});
    expect(Object.keys(r.values).sort()).toEqual(["draft", "review"]);
    expect(r.values.draft).toBe("draft about cats");

    const order = events
      .filter((e) => e.type === "Paused" || e.type === "RunEnd")
      .map((e) => `${label(e)}@${e.workflowId}`);
    expect(order).toEqual([
      "Paused:approval@n0/review",
      "RunEnd:paused@n0/review",
      "Paused:review/approval@n0",
      "RunEnd:paused@n0",
    ]);
    expect(events.find((e) => e.type === "Paused" && e.workflowId === "n0")).toMatchObject({
      responseKey: "approved",
      value: "draft about cats",
    });
  });

  it("resumes with the outer name, without a checkpointer (inputs re-supplied)", async () => {
    const calls: string[] = [];
    const g = outerGraph(calls);
    const runner = new Runner();
    const r1 = await runner.run(g, { values: { topic: "cats" } });
    expect(r1.pause?.responseKey).toBe("approved");
    const r2 = await runner.run(g, { values: { topic: "cats", approved: "yes" } });

    expect(r2.status).toBe("completed");
    expect(r2.get("review/verdict")).toBe("yes: draft about cats");
    expect(r2.get("review/decision")).toBe("yes");
    expect((r2.get("review") as RunResult).status).toBe("completed");
    expect(r2.values.approved).toBe("yes");
    expect(r2.values.verdict).toBe("yes: draft about cats");
    expect(r2.values.published).toBe("draft about cats | yes | yes: draft about cats");
    expect(calls).toEqual(["write", "write", "record", "publish"]);
  });

  it("resumes with the outer name, with a checkpointer (only the answer)", async () => {
    const calls: string[] = [];
    const g = outerGraph(calls);
    const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
    const r1 = await runner.run(g, { values: { topic: "cats" }, workflowId: "n1" });
    expect(r1.status).toBe("paused");
    expect(r1.pause).toEqual({
      reason: "human_input",
      nodeName: "review/approval",
      value: "draft about cats",
      responseKey: "approved",
      visit: 3,
    });

    const r2 = await runner.run(g, { values: { approved: "yes" }, workflowId: "n1" });
    expect(r2.status).toBe("completed");
    expect(r2.pause).toBeUndefined();
    expect(r2.values.published).toBe("draft about cats | yes | yes: draft about cats");
    expect(r2.get("review/verdict")).toBe("yes: draft about cats");
    expect((r2.get("review") as RunResult).status).toBe("completed");
    expect(calls).toEqual(["write", "record", "publish"]);
    await runner.close();
  });

  it("two levels deep: the path and the renames compose", async () => {
    const approval = interrupt({ name: "approval", input: "draft", response: "decision" });
    const inner = new Graph([approval], { name: "inner" });
    const sign = node({ output: "signed" }, function sign({ ok }: { ok: string }) {
      return `signed ${ok}`;
    });
    const middle = new Graph([inner.asNode().withOutputs({ decision: "ok" }), sign], { name: "middle" });
    const write = node({ output: "draft" }, function write({ topic }: { topic: string }) {
      return `draft about ${topic}`;
    });
    const outer = new Graph([write, middle.asNode({ name: "legal" }).withOutputs({ ok: "legalOk" })], {
      name: "outer2",
    });
    const cp = new MemoryCheckpointer();
    const runner = new Runner({ checkpointer: cp });
    const r1 = await runner.run(outer, { values: { topic: "cats" }, workflowId: "deep" });
    expect(r1.status).toBe("paused");
    expect(r1.pause).toEqual({
      reason: "human_input",
      nodeName: "legal/inner/approval",
      value: "draft about cats",
      responseKey: "legalOk",
      visit: 3,
    });
    expect((r1.get("legal") as RunResult).status).toBe("paused");
    expect((r1.get("legal/inner") as RunResult).status).toBe("paused");

    const r2 = await runner.run(outer, { values: { legalOk: "fine" }, workflowId: "deep" });
    expect(r2.status).toBe("completed");
    expect(r2.get("legal/signed")).toBe("signed fine");
    // The innermost interrupt took the answer: its run completed and the answer is an output at every level.
    expect((r2.get("legal") as RunResult | undefined)?.status).toBe("completed");
    expect((r2.get("legal/inner") as RunResult | undefined)?.status).toBe("completed");
    expect(r2.get("legal/inner/decision")).toBe("fine");
    expect(r2.values.legalOk).toBe("fine");
    expect((await cp.getWorkflow("deep/legal/inner"))?.status).toBe("completed");
    await runner.close();
  });

  it("a child graph that holds only the interrupt resumes too (the GraphNode is not skipped)", async () => {
    const approval = interrupt({ name: "approval", input: "draft", response: "decision" });
    const write = node({ output: "draft" }, function write({ topic }: { topic: string }) {
      return `draft about ${topic}`;
    });
    const publish = node(
      { output: "published" },
      function publish({ draft, approved }: { draft: string; approved: string }) {
        return `${draft} (${approved})`;
      },
    );
    const g = new Graph(
      [write, new Graph([approval], { name: "review" }).asNode().withOutputs({ decision: "approved" }), publish],
      { name: "solo" },
    );
    const cp = new MemoryCheckpointer();
    const runner = new Runner({ checkpointer: cp });
    const r1 = await runner.run(g, { values: { topic: "cats" }, workflowId: "solo" });
    expect(r1.pause).toEqual({
      reason: "human_input",
      nodeName: "review/approval",
      value: "draft about cats",
      responseKey: "approved",
      visit: 3,
    });

    const r2 = await runner.run(g, { values: { approved: "yes" }, workflowId: "solo" });
    expect(r2.status).toBe("completed");
    expect(r2.values.published).toBe("draft about cats (yes)");
    expect(r2.values.approved).toBe("yes");
    expect((r2.get("review") as RunResult | undefined)?.status).toBe("completed");
    expect(r2.get("review/decision")).toBe("yes");
    expect((await cp.getWorkflow("solo/review"))?.status).toBe("completed");
    await runner.close();
  });
});

describe("interrupt: runSync", () => {
  it("rejects a graph with an interrupt with IncompatibleRunnerError, before running anything", () => {
    const calls: string[] = [];
    const draft = node({ output: "draft" }, function draft({ topic }: { topic: string }) {
      calls.push("draft");
      return topic;
    });
    const approval = interrupt({ name: "approval", input: "draft", response: "decision" });
    const g = new Graph([draft, approval]);
    let thrown: unknown;
    try {
      new Runner().runSync(g, { values: { topic: "x" } });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(IncompatibleRunnerError);
    expect((thrown as { _tag: string })._tag).toBe("IncompatibleRunnerError");
    expect(isIncompatibleRunnerError(thrown)).toBe(true);
    expect((thrown as Error).message).toContain("approval");
    expect(calls).toEqual([]);
  });

  it("rejects an interrupt nested in a GraphNode", () => {
    const approval = interrupt({ name: "approval", input: "draft", response: "decision" });
    const g = new Graph([new Graph([approval], { name: "review" }).asNode()]);
    expect(() => new Runner().runSync(g, { values: { draft: "d" } })).toThrow(
      expect.objectContaining({ _tag: "IncompatibleRunnerError" }),
    );
    try {
      new Runner().runSync(g, { values: { draft: "d" } });
    } catch (e) {
      expect((e as Error).message).toContain("review/approval");
    }
  });

  it("rejects async nodes (also nested) and still runs a purely synchronous graph", () => {
    const slow = node({ output: "y" }, async function slow({ x }: { x: number }) {
      return x;
    });
    const inc = node({ output: "z" }, function inc({ x }: { x: number }) {
      return x + 1;
    });
    const runner = new Runner();
    for (const g of [new Graph([slow]), new Graph([new Graph([slow], { name: "sub" }).asNode(), inc])]) {
      let thrown: unknown;
      try {
        runner.runSync(g, { values: { x: 1 } });
      } catch (e) {
        thrown = e;
      }
      expect((thrown as { _tag?: string })?._tag).toBe("IncompatibleRunnerError");
      expect((thrown as Error).message).toContain("async");
    }
    const ok = runner.runSync(new Graph([inc]), { values: { x: 1 } });
    expect(ok.status).toBe("completed");
    expect(ok.values).toEqual({ z: 2 });
  });
});
