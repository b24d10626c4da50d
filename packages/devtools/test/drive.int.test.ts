import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MemoryCheckpointer } from "@graph/checkpoint";
import { Runner } from "@graph/runtime";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Devtools } from "../src/index.js";
import { CHROMIUM_ARGS, ensureChromium } from "./chromium.js";
import { Approval, calcGraph, EVIL_NAME, evilGraph, slowGraph, typedReview } from "./fixtures.js";

const REPORTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../reports");

/** Drives runs from the page: start, stop, rerun, typed answers (and a refused one), edit-and-fork, safe names. */
describe("driving runs from the page (Chromium)", () => {
  let browser: Browser;
  let page: Page;
  let devtools: Devtools;
  let runner: Runner;
  const checkpointer = new MemoryCheckpointer({ policy: { durability: "sync" } });
  const pageErrors: string[] = [];
  const consoleMessages: string[] = [];
  const dialogs: string[] = [];

  beforeAll(async () => {
    const executablePath = ensureChromium();
    browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    devtools = new Devtools({
      graphs: [typedReview(), slowGraph(), calcGraph(), evilGraph()],
      checkpointer,
      answerSchemas: { approval: Approval },
    });
    runner = new Runner({ checkpointer, eventProcessors: [devtools] });
    devtools.connect(runner);
    await devtools.listen();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on("pageerror", (e) => pageErrors.push(e.message));
    page.on("console", (m) => consoleMessages.push(m.text()));
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(devtools.url);
    await page.waitForSelector('body[data-connection="live"]');
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await runner?.close();
  });

  async function startFromForm(graph: string, fill: Record<string, string>, workflowId: string) {
    await page.selectOption('[data-field="start-graph"]', graph);
    for (const [input, value] of Object.entries(fill)) await page.fill(`[data-input="${input}"]`, value);
    await page.fill('[data-field="start-id"]', workflowId);
    await page.click('[data-action="start"]');
  }

  it("starts a run from the form built from the graph's inputs, answers it with a typed object from the schema's form", async () => {
    await startFromForm("review", { topic: "cats" }, "r1");
    await page.waitForSelector('[data-run="r1"][data-status="paused"]', { timeout: 30_000 });
    await page.waitForSelector('[data-node="approval"][data-state="paused"]');
    expect(await page.getAttribute("#pause", "data-answer-kind")).toBe("schema");
    expect(await page.textContent('[data-field="pause-value"]')).toBe('"About cats"');
    // The form follows the zod schema: a checkbox for the boolean, a text field for the string.
    expect(await page.getAttribute('[data-answer-field="approved"]', "type")).toBe("checkbox");
    await page.check('[data-answer-field="approved"]');
    await page.fill('[data-answer-field="note"]', "ok");
    await page.click('[data-action="send-answer"]');
    await page.waitForSelector('[data-run="r1"][data-status="completed"]', { timeout: 30_000 });
    const state = await checkpointer.getState("r1");
    expect(state.decision).toEqual({ approved: true, note: "ok" });
    expect(state.published).toBe("About cats (ok)");
    // After the resume, the draft is history from the first run, not a new state.
    expect(await page.getAttribute('[data-node="draft"]', "data-state")).toBe("completed");
    expect(await page.getAttribute('[data-node="draft"]', "data-earlier")).toBe("true");
    expect(await page.getAttribute('[data-node="publish"]', "data-earlier")).toBe("false");
    // The timeline has a row per node with its duration.
    const rows = await page.$$eval("#timeline [data-timeline-row]", (els) =>
      els.map((e) => [e.getAttribute("data-timeline-row"), e.getAttribute("data-state")]),
    );
    expect(rows).toEqual([
      ["draft", "completed"],
      ["approval", "completed"],
      ["publish", "completed"],
    ]);
    expect(await page.getAttribute('[data-timeline-row="publish"]', "data-duration-ms")).toMatch(/^\d+$/);
    // The answer's value diff: `decision` appeared.
    await page.click('[data-node="approval"]');
    expect(await page.getAttribute('#details [data-diff="decision"]', "data-diff-kind")).toBe("added");
  }, 90_000);

  it("reruns a stored workflow with its first values; a bad answer is refused with 400, shown, and nothing is stored", async () => {
    await page.click('[data-workflow="r1"]');
    await page.waitForSelector('#actions [data-workflow-status="completed"]');
    await page.click('#actions [data-action="rerun"]');
    await page.waitForSelector('[data-run^="r1-rerun-"][data-status="paused"]', { timeout: 30_000 });
    const rerunId = (await page.getAttribute('[data-run^="r1-rerun-"]', "data-run"))!;
    expect(await page.textContent('[data-field="pause-value"]')).toBe('"About cats"');
    const before = await checkpointer.getSteps(rerunId, { includeInputs: true });

    await page.click('[data-action="answer-as-json"]');
    await page.fill('[data-field="answer-json"]', '{ "approved": "yes" }');
    expect(await page.textContent('[data-field="answer-preview"]')).toBe('{\n  "approved": "yes"\n}');
    await page.click('[data-action="send-answer"]');
    await page.waitForSelector('[data-field="answer-error"][data-status="400"]');
    const issues = await page.$$eval('[data-field="answer-error"] [data-issue]', (els) =>
      els.map((e) => e.textContent),
    );
    expect(issues).toEqual([
      "approved: Invalid input: expected boolean, received string",
      "note: Invalid input: expected string, received undefined",
    ]);
    expect(await page.textContent('[data-field="answer-error"]')).toContain(
      "The answer to 'approval' does not match its schema",
    );
    // Nothing stored, nothing resumed: the workflow is still paused with the same history.
    expect(await checkpointer.getSteps(rerunId, { includeInputs: true })).toEqual(before);
    expect((await checkpointer.getWorkflow(rerunId))?.status).toBe("paused");
    expect(await page.getAttribute(`[data-run="${rerunId}"]`, "data-status")).toBe("paused");

    // A paused workflow can be cancelled: it ends stopped without running anything.
    await page.click('#actions [data-action="cancel"]');
    await expect.poll(async () => (await checkpointer.getWorkflow(rerunId))?.status).toBe("stopped");
    // No run ended (nothing ran), so no event says so: the page takes the status from the store.
    await page.waitForSelector(`[data-run="${rerunId}"][data-status="stopped"]`);
    await page.waitForSelector('#actions [data-workflow-status="stopped"]');
  }, 90_000);

  it("stops a running workflow from the page", async () => {
    await startFromForm("slow", { ms: "60000" }, "s1");
    await page.waitForSelector('[data-node="wait"][data-state="running"]', { timeout: 30_000 });
    await page.click('#actions [data-action="stop"]');
    await page.waitForSelector('[data-run="s1"][data-status="stopped"]', { timeout: 30_000 });
    expect(await page.getAttribute('[data-node="wait"]', "data-state")).toBe("stopped");
    expect((await checkpointer.getWorkflow("s1"))?.status).toBe("stopped");
    // A stopped workflow offers resume and rerun.
    await page.click('[data-workflow="s1"]');
    await page.waitForSelector('#actions [data-workflow-status="stopped"]');
    expect(await page.$$eval("#actions [data-action]", (els) => els.map((e) => e.getAttribute("data-action")))).toEqual(
      ["resume", "rerun"],
    );
  }, 90_000);

  it("edits a value at a step and forks from there: the nodes reading it run again with the edit", async () => {
    await startFromForm("calc", { n: "2" }, "c1");
    await page.waitForSelector('[data-run="c1"][data-status="completed"]', { timeout: 30_000 });
    expect((await checkpointer.getState("c1")).total).toBe(5);
    await page.click('[data-workflow="c1"]');
    await page.waitForSelector("#history tr[data-step]");
    const doubleStep = page.locator('#history tr[data-step][data-step-kind="node"]', { hasText: "double" }).first();
    // The step's value diff.
    await doubleStep.click();
    expect(await page.textContent('#details [data-diff="doubled"] [data-side="after"]')).toBe("4");
    await doubleStep.locator("[data-edit-fork]").click();
    await page.waitForSelector('[data-edit="doubled"]');
    expect(await page.inputValue('[data-edit="doubled"]')).toBe("4");
    expect(await page.inputValue('[data-edit="n"]')).toBe("2");
    await page.fill('[data-edit="doubled"]', "100");
    await page.click('[data-action="fork-edited"]');
    await page.waitForSelector('[data-run^="c1-fork-"][data-status="completed"]', { timeout: 30_000 });
    const forkId = (await page.getAttribute('[data-run^="c1-fork-"]', "data-run"))!;
    const forked = await checkpointer.getState(forkId);
    expect(forked).toMatchObject({ n: 2, doubled: 100, total: 101 });
    // The fork did not run `double` again: it starts after its step. The run's status and its replayed events reach
    // the page by different routes (the workflow list and the event stream), so wait for the mark.
    await page.waitForSelector('[data-node="double"][data-earlier="true"]', { timeout: 15_000 });
    expect(await page.getAttribute('[data-node="double"]', "data-earlier")).toBe("true");
    expect(await page.getAttribute('[data-node="add"]', "data-state")).toBe("completed");
    mkdirSync(REPORTS, { recursive: true });
    await page.screenshot({ path: path.join(REPORTS, "drive-fork.png") });
  }, 90_000);

  it("shows markup in node names and values as text: no element is injected, no script runs", async () => {
    await startFromForm("evil", { words: '"<b>bold</b>"' }, "x1");
    await page.waitForSelector('[data-run="x1"][data-status="completed"]', { timeout: 30_000 });
    await page.waitForSelector(`[data-node="${EVIL_NAME}"]`);
    // The label is the name as text (Mermaid only laid out a look-alike).
    await page.waitForFunction(
      (name) => document.querySelector('#graph g.node[data-type="function"]')?.textContent === name,
      EVIL_NAME,
    );
    expect(await page.$$eval("#graph img, #graph foreignObject, #graph script", (els) => els.length)).toBe(0);
    expect(await page.evaluate(() => document.querySelectorAll("img, b").length)).toBe(0);
    await page.click(`[data-node="${EVIL_NAME}"]`);
    expect(await page.textContent("#details h2")).toBe(EVIL_NAME);
    expect(await page.textContent("#details")).toContain("<script>alert(2)</script><b>bold</b>");
    expect(await page.evaluate(() => document.querySelectorAll("#details script, #details b").length)).toBe(0);
    // Nothing even tried to run an inline handler (the CSP would have reported it).
    expect(consoleMessages.filter((m) => m.includes("Content Security Policy"))).toEqual([]);
    expect(dialogs).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 90_000);
});
