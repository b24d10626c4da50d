// The support chat in Debian's Chromium (playwright-core): a real page, a real server, a real SQLite file.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatServer, startChatServer } from "../src/server.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const reports = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../reports");

let server: ChatServer;
let browser: Browser;
let dir: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium not found at ${CHROMIUM}. Install Debian's package: \`sudo apt-get install -y chromium\` (or set CHROMIUM_PATH).`,
    );
  dir = mkdtempSync(path.join(tmpdir(), "graph-chat-"));
  server = await startChatServer({ db: path.join(dir, "chat.db"), tokenDelayMs: 90 });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const latestAnswer = (page: Page) =>
  page.evaluate(() => {
    const items = document.querySelectorAll('[data-testid="message"][data-role="assistant"]');
    return items[items.length - 1]?.querySelector(".text")?.textContent ?? "";
  });

/**
 * Records every text the latest answer shows (a MutationObserver in the page, so no render is missed between two
 * samples), and every node status, until `done` holds.
 */
async function watch(page: Page, done: () => Promise<boolean>, timeoutMs = 60_000) {
  await page.evaluate(() => {
    const w = window as unknown as { __texts: string[]; __observer?: MutationObserver };
    w.__observer?.disconnect();
    w.__texts = [];
    const record = () => {
      const items = document.querySelectorAll('[data-testid="message"][data-role="assistant"]');
      const text = items[items.length - 1]?.querySelector(".text")?.textContent ?? "";
      if (text !== "" && text !== w.__texts.at(-1)) w.__texts.push(text);
    };
    w.__observer = new MutationObserver(record);
    w.__observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  const statuses = new Set<string>();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const s of await page.$$eval("[data-node]", (els) =>
      els.map((e) => `${e.getAttribute("data-node")}=${e.getAttribute("data-status")}`),
    ))
      statuses.add(s);
    if (await done()) break;
    if (Date.now() > deadline) throw new Error(`timed out; statuses: ${[...statuses]}`);
    await page.waitForTimeout(25);
  }
  const texts = await page.evaluate(() => (window as unknown as { __texts: string[] }).__texts);
  return { texts, statuses };
}

describe("apps/chat in Chromium", () => {
  it("streams the answer, lights up nodes, takes a typed approval, survives a reload mid-stream, and stops", async () => {
    const page = await browser.newPage({ viewport: { width: 1000, height: 720 } });
    await page.goto(server.url);
    await page.waitForSelector('[data-testid="input"]');
    const chatId = new URL(page.url()).searchParams.get("chat");
    expect(chatId).toMatch(/^chat-/);

    // 1. A question: the agent looks the order up (tool loop), then streams its answer token by token.
    await page.fill('[data-testid="input"]', "Where is my order A-123?");
    await page.click('[data-testid="send"]');
    const first = await watch(page, async () => (await page.$('[data-testid="suspense"]')) !== null);
    const answer = await latestAnswer(page);
    expect(answer).toBe(
      "Order A-123 is shipped with DHL and should arrive on Friday. As an apology for the wait I can refund the shipping fee of 4.90 EUR. Shall I send that?",
    );
    const partials = first.texts.filter((t) => t !== answer && answer.startsWith(t));
    expect(partials.length).toBeGreaterThanOrEqual(3);
    expect(first.statuses).toContain("agent=running");
    expect(first.statuses).toContain("tools=completed");
    expect(await page.getAttribute('[data-tool="lookupOrder"]', "data-state")).toBe("output-available");
    expect(await page.getAttribute('[data-node="approval"]', "data-status")).toBe("paused");
    expect(await page.getAttribute('[data-testid="suspense"]', "data-response-key")).toBe("decision");
    expect(await page.textContent('[data-testid="suspense"] blockquote')).toBe(answer);
    expect(await page.textContent('[data-testid="run-status"]')).toBe("paused");

    // A wrong answer never reaches the workflow: 400 with the schema's reason.
    const refused = await page.evaluate(async (id) => {
      const r = await fetch("/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ id, resume: { responseKey: "decision", value: { approved: "sure" } } }),
      });
      return { status: r.status, body: await r.json() };
    }, chatId);
    expect(refused).toMatchObject({
      status: 400,
      body: { code: "invalid_answer", issues: ["approved: Invalid input: expected boolean, received string"] },
    });

    // 2. The human approves with a note: a typed answer { approved: true, note }.
    await page.fill('[data-testid="note"]', "Refund approved");
    await page.click('[data-testid="approve"]');
    await page.waitForSelector('[data-node="send"][data-status="completed"]');
    expect(await page.textContent('[data-testid="answer"]')).toBe(
      `Sent to the customer with the note "Refund approved": ${answer}`,
    );
    expect(await page.textContent('[data-testid="run-status"]')).toBe("completed");

    // 3. A long answer; the page reloads in the middle of it and the same run goes on streaming.
    await page.fill('[data-testid="input"]', "Please give me a long explanation");
    await page.click('[data-testid="send"]');
    await watch(page, async () => (await latestAnswer(page)).length > 150);
    const callsBefore = server.stats.calls.length;
    const beforeReload = await latestAnswer(page);
    await page.reload();
    await page.waitForSelector('[data-testid="input"]');
    // Renders after the reload: the whole answer so far (replayed), then new tokens as they are generated.
    const rendered = () => page.evaluate(() => (window as unknown as { __texts?: string[] }).__texts?.length ?? 0);
    const after = await watch(page, async () => (await rendered()) >= 4);
    expect(after.texts.length).toBeGreaterThanOrEqual(4);
    for (let i = 1; i < after.texts.length; i++) expect(after.texts[i]!.startsWith(after.texts[i - 1]!)).toBe(true);
    const continued = after.texts.at(-1)!;
    expect(continued.startsWith(beforeReload)).toBe(true);
    expect(continued.length).toBeGreaterThan(beforeReload.length);
    expect(server.stats.calls.length).toBe(callsBefore); // no second run, no second model call
    expect(
      await page.$$eval('[data-testid="message"][data-role="user"]', (els) => els.map((e) => e.textContent)),
    ).toEqual(["Where is my order A-123?", "Approved: Refund approved", "Please give me a long explanation"]);
    expect(await page.getAttribute('[data-node="agent"]', "data-status")).toBe("running");

    // 4. Stop from the page: the run ends "stopped" and the model call is aborted.
    mkdirSync(reports, { recursive: true });
    await page.screenshot({ path: path.join(reports, "chat.png") });
    await page.click('[data-testid="stop"]');
    await page.waitForSelector('[data-testid="panel"][data-run-status="stopped"]');
    expect(server.stats.calls.at(-1)?.aborted).toBe(true);
    expect(await page.getAttribute('[data-node="agent"]', "data-status")).toBe("stopped");
    const stoppedText = await latestAnswer(page);
    await page.waitForTimeout(500);
    expect(await latestAnswer(page)).toBe(stoppedText);
    expect(stoppedText.length).toBeLessThan(
      Array.from({ length: 60 }, (_, i) => `Step ${i + 1}: here is more detail about your request.`).join(" ").length,
    );
    await page.close();
  });

  it("a refused answer keeps the approval pending, takes the optimistic message back and shows the server's issues", async () => {
    const page = await browser.newPage({ viewport: { width: 1000, height: 720 } });
    await page.goto(server.url);
    await page.waitForSelector('[data-testid="input"]');
    await page.fill('[data-testid="input"]', "Where is my order A-123?");
    await page.click('[data-testid="send"]');
    await page.waitForSelector('[data-testid="suspense"]', { timeout: 60_000 });
    const userMessages = () =>
      page.$$eval('[data-testid="message"][data-role="user"]', (els) => els.map((e) => e.textContent));

    // The schema allows a note of at most 200 characters.
    await page.fill('[data-testid="note"]', "n".repeat(201));
    await page.click('[data-testid="approve"]');
    await page.waitForSelector('[data-testid="error"]');
    expect(await page.getAttribute('[data-testid="error"]', "data-code")).toBe("invalid_answer");
    const shown = (await page.textContent('[data-testid="error"] p')) ?? "";
    expect(shown).toContain("does not match its schema");
    expect(shown).toContain("Nothing was stored; the workflow still waits.");
    expect(shown.startsWith("{")).toBe(false); // the server's message, not its raw JSON body
    expect(await page.$$eval('[data-testid="issues"] li', (els) => els.map((e) => e.textContent))).toEqual([
      "note: Too big: expected string to have <=200 characters",
    ]);
    // The approval is still pending and answerable; the refused "Approved: …" message is gone.
    expect(await page.$('[data-testid="suspense"]')).not.toBeNull();
    expect(await page.getAttribute('[data-testid="suspense"]', "data-response-key")).toBe("decision");
    expect(await userMessages()).toEqual(["Where is my order A-123?"]);
    expect(await page.textContent('[data-testid="run-status"]')).toBe("paused");

    // A good answer goes through, clears the error and finishes the run.
    await page.fill('[data-testid="note"]', "Short note");
    await page.click('[data-testid="approve"]');
    await page.waitForSelector('[data-node="send"][data-status="completed"]', { timeout: 60_000 });
    expect(await page.$('[data-testid="error"]')).toBeNull();
    expect(await userMessages()).toEqual(["Where is my order A-123?", "Approved: Short note"]);
    expect(await page.textContent('[data-testid="answer"]')).toContain('with the note "Short note"');
    expect(await page.textContent('[data-testid="run-status"]')).toBe("completed");
    await page.close();
  });

  it("a stop that does not reach the server is shown, and the run goes on until a stop does", async () => {
    const page = await browser.newPage({ viewport: { width: 1000, height: 720 } });
    await page.goto(server.url);
    await page.waitForSelector('[data-testid="input"]');
    const methods: string[] = [];
    page.on("request", (r) => {
      if (r.url().endsWith("/stop")) methods.push(r.method());
    });
    // The network drops the stop request (the browser reports a failed fetch).
    await page.route("**/api/chat/*/stop", (route) => route.abort("failed"));
    await page.fill('[data-testid="input"]', "Please give me a long explanation");
    await page.click('[data-testid="send"]');
    await watch(page, async () => (await latestAnswer(page)).length > 100);
    await page.click('[data-testid="stop"]');
    await page.waitForSelector('[data-testid="error"][data-code="unreachable"]');
    expect(await page.textContent('[data-testid="error"] p')).toContain("The stop did not reach the server");
    // Not a silent local stop: the page goes on following the run, which goes on.
    const before = await latestAnswer(page);
    await watch(page, async () => (await latestAnswer(page)).length > before.length + 40);
    expect(await page.textContent('[data-testid="run-status"]')).toBe("running");
    expect(server.stats.calls.at(-1)?.aborted).toBe(false);

    await page.unroute("**/api/chat/*/stop");
    await page.click('[data-testid="stop"]');
    await page.waitForSelector('[data-testid="panel"][data-run-status="stopped"]');
    expect(await page.$('[data-testid="error"]')).toBeNull();
    expect(server.stats.calls.at(-1)?.aborted).toBe(true);
    expect(methods).toEqual(["POST", "POST"]);
    await page.close();
  });

  it("says what the graph is doing: paused style, loop counts, results per turn, stopped replies, no overflow", async () => {
    mkdirSync(reports, { recursive: true });
    const page = await browser.newPage({ viewport: { width: 1000, height: 720 } });
    await page.goto(server.url);
    await page.waitForSelector('[data-testid="input"]');
    const overflow = () =>
      page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    const dotColor = (name: string) =>
      page.$eval(`[data-node="${name}"] .dot`, (el) => getComputedStyle(el).backgroundColor);

    // Turn 1: the agent loops (a tool call, then the answer) and the run waits at the approval.
    await page.fill('[data-testid="input"]', "Where is my order A-123?");
    await page.click('[data-testid="send"]');
    await page.waitForSelector('[data-testid="suspense"]', { timeout: 60_000 });
    expect(await page.textContent('[data-node="agent"] [data-testid="runs"]')).toBe("×2");
    expect(await page.$('[data-node="approval"] [data-testid="runs"]')).toBeNull();
    expect(await page.getAttribute('[data-node="approval"]', "data-status")).toBe("paused");
    expect(await dotColor("approval")).toBe("rgb(123, 97, 255)"); // not the idle grey
    expect(await dotColor("send")).toBe("rgb(208, 213, 220)");
    expect(await page.getAttribute('[data-testid="run-status"]', "data-status")).toBe("paused");
    await page.screenshot({ path: path.join(reports, "state-paused.png") });

    await page.click('[data-testid="approve"]');
    await page.waitForSelector('[data-node="send"][data-status="completed"]', { timeout: 60_000 });

    // Turn 2, with a word too long for any line: it wraps, the page does not scroll sideways.
    const word = "x".repeat(400);
    await page.fill('[data-testid="input"]', `Please check ${word}`);
    await page.click('[data-testid="send"]');
    await page.waitForSelector('[data-testid="suspense"]', { timeout: 60_000 });
    expect(await overflow()).toBeLessThanOrEqual(0);
    // The first turn's result stays with the first turn: one card, in a message before the new question.
    const cards = await page.$$eval('[data-testid="message"]', (els) =>
      els.map((e) => ({ role: e.getAttribute("data-role"), sent: e.querySelector('[data-testid="answer"]') !== null })),
    );
    const sentAt = cards.findIndex((c) => c.sent);
    const askedAt = cards.findIndex((c) => c.role === "user" && c === cards.filter((x) => x.role === "user").at(-1));
    expect(cards.filter((c) => c.sent)).toHaveLength(1);
    expect(sentAt).toBeGreaterThan(0);
    expect(sentAt).toBeLessThan(askedAt);
    expect(await page.$('[data-testid="suspense"] [data-testid="answer"]')).toBeNull();
    await page.screenshot({ path: path.join(reports, "state-second-turn.png") });
    await page.setViewportSize({ width: 420, height: 800 });
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.screenshot({ path: path.join(reports, "state-narrow.png"), fullPage: true });
    await page.setViewportSize({ width: 1000, height: 720 });

    // Turn 3: a reply cut off by a stop is marked as such.
    await page.click('[data-testid="reject"]');
    await page.waitForSelector('[data-node="send"][data-status="completed"]', { timeout: 60_000 });
    await page.fill('[data-testid="input"]', "Please give me a long explanation");
    await page.click('[data-testid="send"]');
    await watch(page, async () => (await latestAnswer(page)).length > 60);
    expect(await page.$('[data-testid="stopped-mark"]')).toBeNull();
    await page.click('[data-testid="stop"]');
    await page.waitForSelector('[data-testid="panel"][data-run-status="stopped"]');
    await page.waitForSelector('[data-testid="message"][data-role="assistant"] [data-testid="stopped-mark"]');
    expect(await page.$$('[data-testid="stopped-mark"]')).toHaveLength(1);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.screenshot({ path: path.join(reports, "state-stopped.png") });
    await page.close();
  });
});
