import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Graph, node } from "@graph/core";
import { Runner } from "@graph/runtime";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Devtools } from "../src/index.js";
import { CHROMIUM_ARGS, ensureChromium } from "./chromium.js";

const ITEMS = 2000;
const REPORTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../reports");
mkdirSync(REPORTS, { recursive: true });

/** slow (waits for `release`) → fanout × ITEMS → boom (fails). */
function statesGraph(release: Promise<void> = Promise.resolve()) {
  const slow = node({ output: ["ready", "xs"] }, async function slow({ seed }: { seed: number }) {
    await release;
    return [seed, Array.from({ length: ITEMS }, (_, i) => i)];
  });
  const double = node({ output: "twice" }, function double({ x }: { x: number }) {
    return x * 2;
  });
  const fanout = new Graph([double], { name: "fanout" })
    .asNode()
    .withInputs({ x: "xs" })
    .withOutputs({ twice: "doubled" })
    .mapOver("xs");
  const boom = node({ output: "never" }, async function boom({ ready, doubled }: { ready: number; doubled: number[] }) {
    throw new Error(`no good: ${ready + doubled.length}`);
  });
  return new Graph([slow, fanout, boom], { name: "states" });
}

function stopGraph() {
  const wait = node({ output: "done", inputs: [] }, async function wait(_: object, ctx) {
    await new Promise((r) => setTimeout(r, 10_000));
    return ctx.signal.aborted;
  });
  return new Graph([wait], { name: "stopper" });
}

/** 300 items: the first 75 finish at once, the others wait until the run is stopped. */
function stoppedMapGraph() {
  const make = node({ output: "xs" }, function make({ count }: { count: number }) {
    return Array.from({ length: count }, (_, i) => i);
  });
  const item = node({ output: "y" }, async function item({ x }: { x: number }, ctx) {
    if (x < 75) return x;
    await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
    return -1;
  });
  const items = new Graph([item], { name: "items" })
    .asNode()
    .withInputs({ x: "xs" })
    .withOutputs({ y: "ys" })
    .mapOver("xs");
  return new Graph([make, items], { name: "stopmap" });
}

/** An 8-node chain n0 → … → n7, named in the options. */
function chainGraph() {
  const nodes = Array.from({ length: 8 }, (_, i) =>
    node({ name: `n${i}`, inputs: [i === 0 ? "seed" : `v${i - 1}`], output: `v${i}` }, (inputs) => {
      const [value] = Object.values(inputs) as number[];
      return value! + 1;
    }),
  );
  return new Graph(nodes, { name: "chain" });
}

describe("live view states and render throttling (Chromium)", () => {
  let browser: Browser;
  let devtools: Devtools;
  let runner: Runner;

  beforeAll(async () => {
    const executablePath = ensureChromium();
    browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    devtools = new Devtools({ graphs: [statesGraph(), stopGraph(), stoppedMapGraph()], bufferSize: 20_000 });
    runner = new Runner({ eventProcessors: [devtools] });
    devtools.connect(runner);
    await devtools.listen();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await runner?.close();
  });

  it("shows running, done/total, failed and stopped; re-renders at most 5 times a second under a flood", async () => {
    const page = await browser.newPage();
    await page.goto(devtools.url);
    await page.waitForSelector('body[data-connection="live"]');

    const graph = devtools.views.find((v) => v.name === "states")!;
    expect(graph.nodes.map((n) => n.path)).toEqual(["slow", "fanout", "fanout/double", "boom"]);
    // run(), not start(): start() hands the events to a reader too, and waits for it when it falls behind.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const result = runner.run(statesGraph(released), {
      workflowId: "flood",
      values: { seed: 1 },
      errorHandling: "continue",
    });
    await page.waitForSelector('[data-node="slow"][data-state="running"]', { timeout: 30_000 });
    expect(await page.getAttribute('[data-node="fanout"]', "data-state")).toBe("idle");
    // From here on the run sends thousands of events as fast as it can.
    const before = { renders: Number(await page.getAttribute("body", "data-renders")), at: Date.now() };
    release();
    await page.waitForSelector('[data-node="boom"][data-state="failed"]', { timeout: 30_000 });
    const after = { renders: Number(await page.getAttribute("body", "data-renders")), at: Date.now() };
    expect((await result).status).toBe("failed");

    const events = devtools.log.all().filter((e) => e.root === "flood").length;
    expect(events).toBeGreaterThan(ITEMS * 4); // thousands of events arrived during the window…
    const allowed = Math.ceil((after.at - before.at) / 200) + 2;
    process.stdout.write(
      `render throttle: ${events} events, ${after.renders - before.renders} renders in ${after.at - before.at} ms\n`,
    );
    expect(after.renders - before.renders).toBeLessThanOrEqual(allowed); // …but at most one render per 200 ms
    expect(await page.getAttribute('[data-node="fanout"]', "data-progress")).toBe(`${ITEMS}/${ITEMS}`);
    expect(await page.getAttribute('[data-node="fanout"]', "data-state")).toBe("completed");
    expect(await page.getAttribute('[data-run="flood"]', "data-status")).toBe("failed");
    await page.click('[data-node="boom"]');
    expect(await page.textContent("#details")).toContain(`no good: ${1 + ITEMS}`);

    const stoppable = runner.run(stopGraph(), { workflowId: "stop-me" });
    await page.waitForSelector('[data-node="wait"][data-state="running"]');
    expect(await runner.stop("stop-me", { reason: "test" })).toBe(true);
    await page.waitForSelector('[data-node="wait"][data-state="stopped"]');
    expect((await stoppable).status).toBe("stopped");
    await page.close();
  }, 60_000);

  it("a run whose handle dropped events shows a marker with the count, in the run list and above the graph", async () => {
    // Fed from the run's handle (not an event processor): the handle kept only its 6 newest events.
    const fed = new Devtools({ graphs: [chainGraph()] });
    const chainRunner = new Runner();
    fed.connect(chainRunner);
    await fed.listen();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    try {
      await page.goto(fed.url);
      await page.waitForSelector('body[data-connection="live"]');
      const handle = chainRunner.start(chainGraph(), {
        workflowId: "dropped",
        values: { seed: 0 },
        eventBufferSize: 6,
      });
      expect((await handle.result).status).toBe("completed");
      for await (const e of handle.events) fed.onEvent(e);
      const dropped = fed.droppedEvents("dropped");
      expect(dropped).toBeGreaterThan(10);

      await page.waitForSelector(`[data-run="dropped"] .badge.dropped[data-dropped="${dropped}"]`, { timeout: 30_000 });
      expect(await page.textContent('[data-run="dropped"] .badge.dropped')).toBe(`⚠ ${dropped} dropped`);
      await page.click('[data-run="dropped"]');
      await page.waitForSelector(`#dropped[data-dropped="${dropped}"]:not([hidden])`);
      expect(await page.textContent("#dropped")).toContain(
        `⚠ ${dropped} events of this run were dropped before reaching devtools`,
      );
      // What was kept still shows: the last node completed, the run completed, the graph drawn.
      await page.waitForSelector('[data-node="n7"][data-state="completed"]');
      await page.waitForSelector('[data-run="dropped"][data-status="completed"]');
      expect(await page.textContent("#title")).toBe("dropped · graph chain");
      await page.screenshot({ path: path.join(REPORTS, "live-view-events-dropped.png") });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
      await chainRunner.close();
      await fed.close();
    }
  }, 60_000);

  it("a stopped map shows how many items were stopped and how many were done, not total/total", async () => {
    const page = await browser.newPage();
    await page.goto(devtools.url);
    await page.waitForSelector('body[data-connection="live"]');
    const run = runner.run(stoppedMapGraph(), { workflowId: "stopped-map", values: { count: 300 } });
    await page.waitForSelector('[data-run="stopped-map"]', { timeout: 30_000 });
    await page.click('[data-run="stopped-map"]');
    await page.waitForSelector('[data-node="items"][data-progress="75/300"]', { timeout: 30_000 });
    expect(await runner.stop("stopped-map")).toBe(true);
    expect((await run).status).toBe("stopped");
    await page.waitForSelector('[data-node="items"][data-state="stopped"]');
    expect(await page.getAttribute('[data-node="items"]', "data-progress")).toBe("225 stopped / 75 done");
    expect(await page.getAttribute('[data-timeline-row="items"]', "data-progress")).toBe("225 stopped / 75 done");
    // Map items are collapsed in the timeline until opened.
    expect(await page.$$("[data-timeline-item]")).toHaveLength(0);
    await page.click('[data-toggle="items:items"]');
    await page.waitForSelector("[data-timeline-item]");
    const items = await page.$$eval("[data-timeline-item]", (els) => els.map((e) => e.getAttribute("data-state")));
    expect(items).toHaveLength(100);
    expect(items.slice(0, 75).every((s) => s === "completed")).toBe(true);
    expect(items.slice(75).every((s) => s === "stopped")).toBe(true);
    await page.close();
  }, 60_000);
});
