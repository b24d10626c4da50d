import { Runner } from "@graph/runtime";
import { afterEach, describe, expect, it } from "vitest";
import { Devtools } from "../src/index.js";
import { call, memory, readEvents, reviewGraph } from "./helpers.js";

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

async function setup(options: { bufferSize?: number } = {}) {
  const checkpointer = memory();
  const graph = reviewGraph();
  const devtools = new Devtools({ graphs: [graph], checkpointer, ...options });
  const runner = new Runner({ checkpointer, eventProcessors: [devtools] });
  devtools.connect(runner);
  const url = await devtools.listen();
  const port = Number(new URL(url).port);
  opened.push({ close: () => runner.close() });
  const auth = { "x-devtools-token": devtools.token };
  return { devtools, runner, graph, port, auth, url };
}

const until = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("condition not met in 2 s");
};

describe("devtools server", () => {
  it("listens on 127.0.0.1 with the token in the URL; serves the page and Mermaid without a token", async () => {
    const { port, url, devtools } = await setup();
    expect(url).toBe(`http://127.0.0.1:${port}/?token=${devtools.token}`);
    expect(devtools.token.length).toBeGreaterThanOrEqual(32);
    const page = await call(port, "/");
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script src="/mermaid.min.js"></script>');
    const mermaid = await call(port, "/mermaid.min.js");
    expect(mermaid.status).toBe(200);
    expect(mermaid.body.length).toBeGreaterThan(1_000_000);
    expect((await call(port, "/app.js")).status).toBe(200);
    expect((await call(port, "/nope.js")).status).toBe(404);
  });

  it("refuses API calls without the token, and any request naming another Host (DNS rebinding)", async () => {
    const { port, auth } = await setup();
    expect((await call(port, "/api/graphs")).status).toBe(401);
    expect((await call(port, "/api/graphs", { headers: { "x-devtools-token": "wrong" } })).status).toBe(401);
    const ok = await call(port, "/api/graphs", { headers: auth });
    expect(ok.status).toBe(200);
    expect((ok.json() as { name: string }[]).map((v) => v.name)).toEqual(["review"]);
    const rebound = await call(port, "/api/graphs", { headers: { ...auth, host: `evil.example:${port}` } });
    expect(rebound.status).toBe(403);
    expect(rebound.json()).toEqual({ error: `Host 'evil.example:${port}' is not this devtools server.` });
  });

  it("answers only with the token, from its own origin (or none), with a JSON body: no CSRF", async () => {
    const { port, auth, runner, graph, devtools } = await setup();
    expect((await runner.run(graph, { workflowId: "w1", values: { text: "hi" } })).status).toBe("paused");
    const path = "/api/workflows/w1/answer";
    const body = { action: "approve" };
    expect((await call(port, path, { body })).status).toBe(401);
    const foreign = await call(port, path, { body, headers: { ...auth, origin: "http://evil.example" } });
    expect(foreign.status).toBe(403);
    expect(foreign.json()).toEqual({ error: "Writes from origin 'http://evil.example' are not allowed." });
    const form = await call(port, path, {
      method: "POST",
      headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
    expect((await call(port, path, { body: { action: "maybe" }, headers: auth })).status).toBe(400);
    const ok = await call(port, path, { body, headers: { ...auth, origin: `http://127.0.0.1:${port}` } });
    expect(ok.status).toBe(202);
    await until(async () => devtools.log.all().some((e) => e.type === "RunEnd" && e.status === "completed"));
    const publish = devtools.log.all().find((e) => e.type === "NodeEnd" && e.path === "publish");
    expect(publish?.outputs).toEqual({ published: '"HI"' });
  });

  it("a free-text answer becomes the interrupt's value; answering a workflow that is not paused is a 400", async () => {
    const { port, auth, runner, graph, devtools } = await setup();
    await runner.run(graph, { workflowId: "w2", values: { text: "yo" } });
    const r = await call(port, "/api/workflows/w2/answer", { body: { action: "text", text: "later" }, headers: auth });
    expect(r.status).toBe(202);
    await until(async () => devtools.log.all().some((e) => e.type === "RunEnd" && e.status === "completed"));
    expect((await runner.run(graph, { workflowId: "w2" })).get("published")).toBe("not published (later)");
    const again = await call(port, "/api/workflows/w2/answer", { body: { action: "approve" }, headers: auth });
    expect(again.status).toBe(400);
    expect((again.json() as { error: string }).error).toContain("'w2' is not paused at an interrupt");
  });

  it("lists stored workflows, shows one's step history and final values, and forks from a step", async () => {
    const { port, auth, runner, graph, devtools } = await setup();
    await runner.run(graph, { workflowId: "w3", values: { text: "abc" } });
    const list = (await call(port, "/api/workflows", { headers: auth })).json() as { id: string; status: string }[];
    expect(list.map((w) => [w.id, w.status])).toEqual([["w3", "paused"]]);
    const detail = (await call(port, "/api/workflows/w3", { headers: auth })).json() as {
      steps: { superstep: number; nodeName: string; status: string }[];
      values: Record<string, string>;
      pause: { nodeName: string; value: string };
    };
    expect(detail.steps.map((s) => [s.nodeName, s.status]).slice(-2)).toEqual([
      ["prepare", "completed"],
      ["approval", "paused"],
    ]);
    expect(detail.values.loud).toBe('"ABC"');
    expect(detail.pause).toMatchObject({ nodeName: "approval", value: '"ABC"' });
    expect((await call(port, "/api/workflows/nope", { headers: auth })).status).toBe(404);

    const prepareStep = detail.steps.find((s) => s.nodeName === "prepare")!;
    const fork = await call(port, "/api/workflows/w3/fork", {
      body: { superstep: prepareStep.superstep },
      headers: auth,
    });
    expect(fork.status).toBe(202);
    const { workflowId } = fork.json() as { workflowId: string };
    expect(workflowId).toMatch(/^w3-fork-[0-9a-f]{6}$/);
    // The fork starts from the checkpoint after 'prepare': it reaches the approval again without re-running it.
    await until(async () =>
      devtools.log.all().some((e) => e.type === "RunEnd" && e.root === workflowId && e.status === "paused"),
    );
    const forkStarts = devtools.log.all().filter((e) => e.root === workflowId && e.type === "NodeStart");
    expect(forkStarts.map((e) => e.path)).toEqual(["approval"]);
  });

  it("streams events with node paths (nested runs under their GraphNode) and replays what a reconnect missed", async () => {
    const { port, devtools, runner, graph } = await setup();
    await runner.run(graph, { workflowId: "w4", values: { text: "x" } });
    const all = devtools.log.all();
    expect(all.map((e) => `${e.type}${e.path === undefined ? "" : ` ${e.path}`}`)).toEqual([
      "RunStart ",
      "NodeStart prepare",
      "RunStart prepare",
      "NodeStart prepare/shout",
      "NodeEnd prepare/shout",
      "RunEnd prepare",
      "NodeEnd prepare",
      "NodeStart approval",
      "Paused approval",
      "RunEnd ",
    ]);
    expect(all.every((e) => e.root === "w4")).toBe(true);
    const first = await readEvents(port, devtools.token, all.length);
    expect(first.names[0]).toBe("reset");
    expect(first.events.map((e) => e.id)).toEqual(all.map((e) => e.id));
    // Reconnecting after event 7 gets exactly 8, 9, 10 — no reset.
    const missed = await readEvents(port, devtools.token, 3, all[6]!.id);
    expect(missed.names).not.toContain("reset");
    expect(missed.events.map((e) => e.id)).toEqual(all.slice(7).map((e) => e.id));
  });

  it("a reconnect whose Last-Event-ID fell out of the bounded buffer starts over with a reset", async () => {
    const { port, devtools, runner, graph } = await setup({ bufferSize: 4 });
    await runner.run(graph, { workflowId: "w5", values: { text: "x" } });
    expect(devtools.log.all().map((e) => e.id)).toEqual([7, 8, 9, 10]);
    const r = await readEvents(port, devtools.token, 4, 2);
    expect(r.names[0]).toBe("reset");
    // The reset says how many events the page can no longer get (the page shows it as a notice).
    expect(r.resets).toEqual([{ notKept: 6 }]);
    expect(r.events.map((e) => e.id)).toEqual([7, 8, 9, 10]);
  });
});
