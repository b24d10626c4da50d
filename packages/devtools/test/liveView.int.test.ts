import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, ensureChromium } from "./chromium.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DEMO = path.resolve(HERE, "../../../apps/demo");
const REPORTS = path.resolve(HERE, "../reports");

/** Starts `demo --ui` and resolves with its process and the live view's URL (printed on stdout). */
function startDemo(dataDir: string): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(
    process.execPath,
    ["--conditions=@graph/source", "--import", "tsx", "src/main.ts", "--ui", "--data", dataDir, "--id", "ui-e2e"],
    { cwd: DEMO, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } },
  );
  let out = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`demo --ui printed no URL in 30 s:\n${out}`)), 30_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /Live view: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, output: () => out });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) =>
      reject(new Error(`demo --ui exited (${String(code)}) before printing a URL:\n${out}`)),
    );
  });
}

describe("demo --ui in a real browser (Debian's Chromium via playwright-core)", () => {
  let browser: Browser;
  let demo: Awaited<ReturnType<typeof startDemo>>;
  const dataDir = mkdtempSync(path.join(tmpdir(), "graph-devtools-e2e-"));

  beforeAll(async () => {
    const executablePath = ensureChromium();
    demo = await startDemo(dataDir);
    browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    if (demo !== undefined && demo.child.exitCode === null) {
      const exited = new Promise((r) => demo.child.once("exit", r));
      demo.child.kill("SIGINT");
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("shows the run pause at the approval, resumes it on Approve and completes; saves a screenshot", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const offsite: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith("http://127.0.0.1:") && !r.url().startsWith("data:")) offsite.push(r.url());
    });
    await page.goto(demo.url);

    await page.waitForSelector('[data-node="approval"][data-state="paused"]', { timeout: 30_000 });
    // Nodes before the interrupt completed; the mapped research subgraph counted its items.
    expect(await page.getAttribute('[data-node="classify"]', "data-state")).toBe("completed");
    expect(await page.getAttribute('[data-node="research"]', "data-progress")).toMatch(/^(\d+)\/\1$/);
    expect(await page.getAttribute('[data-node="finalize"]', "data-state")).toBe("idle");
    expect(await page.getAttribute('[data-run="ui-e2e"]', "data-status")).toBe("paused");
    expect(await page.textContent('[data-field="pause-value"]')).toContain('"risk": "high"');

    // The side panel shows the selected node's inputs/outputs and timings.
    await page.click('[data-node="classify"]');
    const details = await page.textContent('[data-details="classify"]');
    expect(details).toContain("completed");
    expect(details).toMatch(/duration\d+ ms/);
    expect(await page.textContent("#details")).toContain('"billing"');

    mkdirSync(REPORTS, { recursive: true });
    await page.screenshot({ path: path.join(REPORTS, "live-view-paused.png") });

    await page.click('[data-action="approve"]');
    await page.waitForSelector('[data-node="finalize"][data-state="completed"]', { timeout: 30_000 });
    // The resumed run replays the finished steps from the checkpoint instead of running them again.
    // It shows them as history from the first run (completed, marked earlier), not as a new state.
    expect(await page.getAttribute('[data-node="classify"]', "data-state")).toBe("completed");
    expect(await page.getAttribute('[data-node="classify"]', "data-earlier")).toBe("true");
    expect(await page.getAttribute('[data-node="approval"]', "data-earlier")).toBe("false");
    expect(await page.getAttribute('[data-node="approval"]', "data-state")).toBe("completed");
    expect(await page.getAttribute('[data-node="escalate"]', "data-state")).toBe("idle");
    await page.waitForSelector('[data-run="ui-e2e"][data-status="completed"]');
    await page.screenshot({ path: path.join(REPORTS, "live-view.png") });

    expect(demo.output()).toContain("workflow ui-e2e: completed");

    // Nested graphs collapse to one node (and expand again).
    await page.click('[data-node="research"]');
    await page.click('[data-action="collapse"]');
    await page.waitForSelector('g.node[data-node="research"]');
    expect(await page.$('[data-node="research/read"]')).toBeNull();
    await page.click('[data-action="collapse"]');
    await page.waitForSelector('g.cluster[data-node="research"]');
    await page.waitForSelector('[data-node="research/read"]');

    // The stored workflow: its step history and final values; fork it from the draft's step.
    await page.click('[data-workflow="ui-e2e"]');
    await page.waitForSelector("#history tr[data-step]");
    const history = await page.textContent("#history");
    expect(history).toContain("History of ui-e2e (completed)");
    expect(history).toContain("finalize");
    expect(history).toContain('"outcome":"sent"');
    const draftStep = page.locator("#history tr[data-step]", { hasText: "draft" }).first();
    await draftStep.locator("[data-fork]").click();
    // The fork re-runs from the checkpoint after the draft: it reaches the (high-risk) approval again.
    await page.waitForSelector('[data-run^="ui-e2e-fork-"][data-status="paused"]', { timeout: 30_000 });
    await page.waitForSelector('[data-node="approval"][data-state="paused"]');
    expect(await page.getAttribute('[data-node="draft"]', "data-state")).toBe("completed");
    expect(await page.getAttribute('[data-node="draft"]', "data-earlier")).toBe("true");
    expect(errors).toEqual([]);
    expect(offsite).toEqual([]); // everything the page loads is served by the package itself
    await page.close();
  }, 90_000);
});
