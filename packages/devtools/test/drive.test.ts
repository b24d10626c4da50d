import { INPUT_STEP } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { Runner } from "@graph/runtime";
import { afterEach, describe, expect, it } from "vitest";
import { Devtools } from "../src/index.js";
import { Approval, calcGraph, slowGraph, typedReview } from "./fixtures.js";
import { call, memory } from "./helpers.js";

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

async function setup(graphs: Graph[] = [typedReview(), slowGraph(), calcGraph()]) {
  const checkpointer = memory();
  const devtools = new Devtools({ graphs, checkpointer, answerSchemas: { approval: Approval } });
  const runner = new Runner({ checkpointer, eventProcessors: [devtools], leaseTtlMs: 2000 });
  devtools.connect(runner);
  const url = await devtools.listen();
  const port = Number(new URL(url).port);
  opened.push({ close: () => runner.close() });
  const headers = { "x-devtools-token": devtools.token };
  const post = (path: string, body: unknown = {}) => call(port, path, { body, headers });
  const get = (path: string) => call(port, path, { headers });
  return { devtools, runner, checkpointer, port, post, get };
}

const until = async (check: () => Promise<boolean>, what = "condition") => {
  for (let i = 0; i < 300; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${what} not met in 3 s`);
};

describe("devtools API: driving runs", () => {
  it("refuses an answer schema that is not a schema", () => {
    expect(() => new Devtools({ graphs: [], answerSchemas: { approval: { type: "boolean" } as never } })).toThrow(
      "answerSchemas['approval'] is not a schema.",
    );
  });

  it("answers 400 (not 500) to malformed percent-encoding in a URL", async () => {
    const { get, post } = await setup();
    for (const bad of ["/api/workflows/%E0%A4%A", "/api/workflows/%E0%A4%A/items", "/api/workflows/%ZZ"]) {
      const r = await get(bad);
      expect(r.status).toBe(400);
      expect(r.json()).toEqual({ error: `Malformed URL: '${bad.split("/")[3]}' is not valid percent-encoding.` });
    }
    expect((await post("/api/workflows/%E0%A4%A/stop")).status).toBe(400);
  });

  it("starts a run from values checked against the graph's inputs and their zod schemas", async () => {
    const { post, checkpointer } = await setup();
    const missing = await post("/api/runs", { graph: "review", values: {} });
    expect(missing.status).toBe(400);
    expect(missing.json()).toEqual({
      error:
        "Can't start graph 'review': 'topic' is required.\n  How to fix: give every required input (inputs: topic).",
      issues: ["'topic' is required"],
    });
    const wrong = await post("/api/runs", { graph: "review", values: { topic: 3, topik: "x" } });
    expect(wrong.status).toBe(400);
    expect((wrong.json() as { issues: string[] }).issues).toEqual([
      "'topik' is not an input of this graph (did you mean 'topic'?)",
      "topic: Invalid input: expected string, received number",
    ]);
    expect((await post("/api/runs", { graph: "nope", values: {} })).status).toBe(404);
    expect((await checkpointer.listWorkflows()).workflows).toEqual([]); // nothing was started

    const ok = await post("/api/runs", { graph: "review", values: { topic: "dogs" } });
    expect(ok.status).toBe(202);
    const { workflowId } = ok.json() as { workflowId: string };
    expect(workflowId).toMatch(/^review-[0-9a-f]{6}$/);
    await until(async () => (await checkpointer.getWorkflow(workflowId))?.status === "paused", "paused");
    const again = await post("/api/runs", { graph: "review", values: { topic: "dogs" }, workflowId });
    expect(again.status).toBe(409);
    expect((again.json() as { error: string }).error).toContain(`Workflow '${workflowId}' already exists`);
  });

  it("an answer sent with the visit of a pause settled meanwhile is refused, nothing stored; the page is shown the visit", async () => {
    const { post, get, runner, checkpointer } = await setup();
    const stored = async () => ({
      record: await checkpointer.getWorkflow("v1"),
      steps: await checkpointer.getSteps("v1", { includeInputs: true }),
    });
    const first = await runner.run(typedReview(), { workflowId: "v1", values: { topic: "t" } });
    const visit = first.pause?.visit;
    expect(visit).toBe((await checkpointer.getWorkflow("v1"))?.lastSuperstep);
    expect(((await get("/api/workflows/v1")).json() as { pause: { visit: number } }).pause.visit).toBe(visit);
    // Answered elsewhere: the pause the page showed is settled, the workflow completed.
    const done = await runner.run(typedReview(), {
      workflowId: "v1",
      values: { decision: { approved: true, note: "elsewhere" } },
      answering: first.pause,
    });
    expect(done.status).toBe("completed");
    const completed = await stored();
    const late = await post("/api/workflows/v1/answer", { value: { approved: false, note: "late" }, visit });
    expect(late.status).toBe(400);
    expect((late.json() as { error: string }).error).toBe(
      "Workflow 'v1' is not paused at an interrupt: there is nothing to answer.",
    );
    expect(await stored()).toEqual(completed);
    // The next turn pauses at the same interrupt again, at a new visit: the old answer is not taken by it.
    const next = await runner.run(typedReview(), { workflowId: "v1", values: { topic: "u" } });
    expect(next.pause?.nodeName).toBe("approval");
    expect(next.pause?.visit).toBeGreaterThan(visit!);
    const paused = await stored();
    const stale = await post("/api/workflows/v1/answer", { value: { approved: false, note: "late" }, visit });
    expect(stale.status).toBe(409);
    expect((stale.json() as { error: string }).error).toBe(
      `Workflow 'v1' is no longer paused at the pause this answer is for (visit ${visit}): it now waits at 'approval' (visit ${next.pause?.visit}). Nothing was stored; reload the workflow and answer its current pause.`,
    );
    expect(await stored()).toEqual(paused);
    const ok = await post("/api/workflows/v1/answer", {
      value: { approved: true, note: "now" },
      visit: next.pause?.visit,
    });
    expect(ok.status).toBe(202);
    await until(async () => (await checkpointer.getWorkflow("v1"))?.status === "completed", "completed");
    expect((await checkpointer.getState("v1")).published).toBe("About u (now)");
  });

  it("validates an answer with the interrupt's schema on the server: 400 with the issues, nothing stored", async () => {
    const { post, runner, checkpointer, devtools } = await setup();
    await runner.run(typedReview(), { workflowId: "a1", values: { topic: "t" } });
    const before = await checkpointer.getSteps("a1", { includeInputs: true });
    const record = await checkpointer.getWorkflow("a1");
    for (const value of [true, { approved: true }, { approved: "yes", note: "ok" }]) {
      const r = await post("/api/workflows/a1/answer", { value });
      expect(r.status).toBe(400);
      expect((r.json() as { error: string }).error).toMatch(/^The answer to 'approval' does not match its schema: /);
    }
    // The old buttons are refused too: `true` is not an Approval.
    const button = await post("/api/workflows/a1/answer", { action: "approve" });
    expect(button.json()).toMatchObject({ issues: ["Invalid input: expected object, received boolean"] });
    expect(await checkpointer.getSteps("a1", { includeInputs: true })).toEqual(before);
    expect(await checkpointer.getWorkflow("a1")).toEqual(record);

    const ok = await post("/api/workflows/a1/answer", { value: { approved: false, note: "too short" } });
    expect(ok.status).toBe(202);
    await until(async () => (await checkpointer.getWorkflow("a1"))?.status === "completed", "completed");
    expect((await checkpointer.getState("a1")).published).toBe("rejected: too short");
    const views = devtools.views.find((v) => v.name === "review")!;
    expect(views.nodes.find((n) => n.path === "approval")?.answer).toEqual({
      kind: "schema",
      schema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { approved: { type: "boolean" }, note: { type: "string", minLength: 1 } },
        required: ["approved", "note"],
      },
    });
    expect(views.inputs).toEqual([
      {
        name: "topic",
        kind: "required",
        schema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "string", minLength: 1 },
      },
    ]);
  });

  it("stops a running workflow; cancels a paused one; 409 when there is nothing to stop", async () => {
    const { post, checkpointer } = await setup();
    const { workflowId } = (await post("/api/runs", { graph: "slow", values: { ms: 60_000 } })).json() as {
      workflowId: string;
    };
    await until(async () => (await checkpointer.getWorkflow(workflowId))?.status === "running", "running");
    expect((await post(`/api/workflows/${workflowId}/stop`)).status).toBe(202);
    await until(async () => (await checkpointer.getWorkflow(workflowId))?.status === "stopped", "stopped");
    const again = await post(`/api/workflows/${workflowId}/stop`);
    expect(again.status).toBe(409);
    expect(again.json()).toEqual({
      error: `Workflow '${workflowId}' has nothing to stop: it already ended (stopped).`,
    });
    expect((await post("/api/workflows/ghost/stop")).status).toBe(404);

    const paused = (await post("/api/runs", { graph: "review", values: { topic: "x" } })).json() as {
      workflowId: string;
    };
    await until(async () => (await checkpointer.getWorkflow(paused.workflowId))?.status === "paused", "paused");
    expect((await post(`/api/workflows/${paused.workflowId}/cancel`)).status).toBe(202);
    expect((await checkpointer.getWorkflow(paused.workflowId))?.status).toBe("stopped");
  });

  it("reruns a workflow with its first values, as a new workflow", async () => {
    const { post, runner, checkpointer } = await setup();
    await runner.run(calcGraph(), { workflowId: "c1", values: { n: 4 } });
    const r = await post("/api/workflows/c1/rerun");
    expect(r.status).toBe(202);
    const { workflowId } = r.json() as { workflowId: string };
    expect(workflowId).toMatch(/^c1-rerun-[0-9a-f]{6}$/);
    await until(async () => (await checkpointer.getWorkflow(workflowId))?.status === "completed", "completed");
    expect(await checkpointer.getState(workflowId)).toEqual({ n: 4, doubled: 8, total: 9 });
    expect((await post("/api/workflows/nope/rerun")).status).toBe(404);
  });

  it("resumes a failed workflow where it failed: finished steps are not run again", async () => {
    let failing = true;
    const calls: string[] = [];
    const first = node({ output: "a" }, function first({ x }: { x: number }) {
      calls.push("first");
      return x + 1;
    });
    const second = node({ output: "b" }, function second({ a }: { a: number }) {
      calls.push("second");
      if (failing) throw new Error("flaky");
      return a * 10;
    });
    const graph = new Graph([first, second], { name: "flaky" });
    const { post, runner, checkpointer } = await setup([graph]);
    expect((await runner.run(graph, { workflowId: "f1", values: { x: 1 }, errorHandling: "continue" })).status).toBe(
      "failed",
    );
    failing = false;
    expect((await post("/api/workflows/f1/resume")).status).toBe(202);
    await until(async () => (await checkpointer.getWorkflow("f1"))?.status === "completed", "completed");
    expect(calls).toEqual(["first", "second", "second"]);
    expect((await checkpointer.getState("f1")).b).toBe(20);
    const done = await post("/api/workflows/f1/resume");
    expect(done.status).toBe(409);
    expect(done.json()).toEqual({ error: "Workflow 'f1' is completed: rerun it instead." });
  });

  it("shows a running workflow nobody holds as dead, and resumes it", async () => {
    const { post, get, checkpointer, runner } = await setup();
    // What a process that crashed right after its inputs were stored leaves: status running, a lease that expired.
    await checkpointer.setup();
    await checkpointer.createWorkflow({ id: "d1", graphName: "calc", graphHash: calcGraph().definitionHash });
    const lease = await checkpointer.claimWorkflow("d1", { owner: "crashed-process", ttlMs: 1 });
    const at = new Date();
    await checkpointer.saveStep(
      {
        workflowId: "d1",
        kind: "input",
        nodeName: INPUT_STEP,
        superstep: 1,
        index: 1,
        status: "completed",
        inputVersions: {},
        values: { n: 3 },
        truncated: false,
        startedAt: at,
        completedAt: at,
      },
      { epoch: lease.epoch },
    );
    await new Promise((r) => setTimeout(r, 20));
    const list = (await get("/api/workflows")).json() as { id: string; status: string }[];
    expect(list.find((w) => w.id === "d1")?.status).toBe("dead");
    expect((await get("/api/workflows/d1")).json()).toMatchObject({ status: "dead", storedStatus: "running" });
    // A live run is not dead.
    const live = runner.run(slowGraph(), { workflowId: "alive", values: { ms: 300 } });
    await until(async () => (await checkpointer.getWorkflow("alive"))?.status === "running", "running");
    const listed = (await get("/api/workflows")).json() as { id: string; status: string }[];
    expect(listed.find((w) => w.id === "alive")?.status).toBe("running");
    expect((await post("/api/workflows/alive/resume")).json()).toEqual({
      error: "Workflow 'alive' is running: stop it first.",
    });
    await live;

    expect((await post("/api/workflows/d1/resume")).status).toBe(202);
    await until(async () => (await checkpointer.getWorkflow("d1"))?.status === "completed", "completed");
    expect(await checkpointer.getState("d1")).toEqual({ n: 3, doubled: 6, total: 7 });
  });

  it("forks from a step with edited values; the history has a value diff per step; unknown names are refused", async () => {
    const { post, get, runner, checkpointer } = await setup();
    await runner.run(calcGraph(), { workflowId: "c2", values: { n: 2 } });
    await runner.run(calcGraph(), { workflowId: "c2", values: { n: 5 } }); // a second turn: n changes
    const detail = (await get("/api/workflows/c2")).json() as {
      steps: { kind: string; nodeName: string; superstep: number; changes: Record<string, unknown> }[];
    };
    expect(detail.steps.map((s) => [s.kind, s.nodeName, s.changes])).toEqual([
      ["input", ".input", { n: { after: "2" } }],
      ["node", "double", { doubled: { after: "4" } }],
      ["node", "add", { total: { after: "5" } }],
      ["input", ".input", { n: { before: "2", after: "5" } }],
      ["node", "double", { doubled: { before: "4", after: "10" } }],
      ["node", "add", { total: { before: "5", after: "11" } }],
    ]);
    const firstDouble = detail.steps[1]!;
    const state = await get(`/api/workflows/c2/state?superstep=${firstDouble.superstep}`);
    expect(state.json()).toEqual({
      workflowId: "c2",
      superstep: firstDouble.superstep,
      values: [
        { name: "n", json: "2", editable: true },
        { name: "doubled", json: "4", editable: true },
      ],
    });
    const bad = await post("/api/workflows/c2/fork", { superstep: firstDouble.superstep, values: { doubld: 1 } });
    expect(bad.status).toBe(400);
    expect((bad.json() as { issues: string[] }).issues).toEqual([
      `'doubld' is not a value of 'c2' at superstep ${firstDouble.superstep} (did you mean 'doubled'?)`,
    ]);
    const fork = await post("/api/workflows/c2/fork", { superstep: firstDouble.superstep, values: { doubled: 50 } });
    expect(fork.status).toBe(202);
    const { workflowId } = fork.json() as { workflowId: string };
    await until(async () => (await checkpointer.getWorkflow(workflowId))?.status === "completed", "completed");
    expect(await checkpointer.getState(workflowId)).toEqual({ n: 2, doubled: 50, total: 51 });
    expect((await get("/api/workflows/c2/state?superstep=x")).status).toBe(400);
    expect((await get("/api/workflows/nope/state?superstep=1")).status).toBe(404);
  });

  it("lists a stored map's items with counts by status", async () => {
    const dbl = node({ output: "y" }, function dbl({ x }: { x: number }) {
      return x * 2;
    });
    const mapped = new Graph([dbl], { name: "inner" })
      .asNode()
      .withInputs({ x: "xs" })
      .withOutputs({ y: "ys" })
      .mapOver("xs");
    const graph = new Graph([mapped], { name: "mapper" });
    const { get, runner } = await setup([graph]);
    await runner.run(graph, { workflowId: "m1", values: { xs: [1, 2, 3] } });
    const detail = (await get("/api/workflows/m1")).json() as { steps: { nodeName: string; child?: unknown }[] };
    expect(detail.steps.find((s) => s.nodeName === "inner")?.child).toEqual({ id: "m1/inner", kind: "map" });
    const items = (await get(`/api/workflows/${encodeURIComponent("m1/inner")}/items`)).json() as {
      counts: Record<string, number>;
      items: { index: number; status: string }[];
    };
    expect(items.counts).toEqual({ completed: 3 });
    expect(items.items.map((i) => [i.index, i.status])).toEqual([
      [0, "completed"],
      [1, "completed"],
      [2, "completed"],
    ]);
  });
});
