import { beforeEach, describe, expect, it } from "vitest";

// The page's model is plain browser JavaScript with no DOM: the same file the page loads is tested here.
interface PageNode {
  state: string;
  waiting?: { kind: string; where: string; key: string; limit: number; active?: number; queued?: number };
  earlier?: boolean;
  outputs?: Record<string, string>;
  diff?: Record<string, { before?: string; after: string }>;
}
interface Model {
  state: { runs: Map<string, { status: string; nodes: Map<string, PageNode> }>; follow: boolean };
  apply(ev: Record<string, unknown>): void;
  progressOf(n: object): string | undefined;
}
const modelUrl = new URL("../assets/model.js", import.meta.url).href;
const { state, apply, progressOf } = (await import(/* @vite-ignore */ modelUrl)) as Model;

let t = 0;
const ev = (type: string, fields: Record<string, unknown> = {}) =>
  apply({ type, root: "w", workflowId: "w", timestamp: ++t, ...fields });
const node = (path: string) => state.runs.get("w")!.nodes.get(path)!;

beforeEach(() => state.runs.clear());

describe("page model", () => {
  it("after a resume, replayed steps stay history from the earlier run; nodes that run again get a new state", () => {
    ev("RunStart", { depth: 0, graph: "g", path: "" });
    ev("NodeStart", { path: "draft", inputs: {} });
    ev("NodeEnd", { path: "draft", status: "completed", replayed: false, outputs: { d: '"x"' }, durationMs: 5 });
    ev("NodeStart", { path: "approval", inputs: {} });
    ev("Paused", { path: "approval", nodeName: "approval", value: '"x"' });
    ev("RunEnd", { path: "", status: "paused" });
    expect(node("approval").state).toBe("paused");

    ev("RunStart", { depth: 0, graph: "g", path: "" }); // the resume
    ev("NodeEnd", { path: "draft", status: "completed", replayed: true, outputs: { d: '"x"' }, durationMs: 0 });
    ev("NodeStart", { path: "approval", inputs: {} });
    ev("NodeEnd", { path: "approval", status: "completed", replayed: false, outputs: { ok: "true" }, durationMs: 1 });
    expect(node("draft")).toMatchObject({ state: "completed", earlier: true });
    expect(node("approval")).toMatchObject({ state: "completed", earlier: false, diff: { ok: { after: "true" } } });
  });

  it("a page that opens after the first run learns replayed steps as completed history", () => {
    ev("RunStart", { depth: 0, graph: "g", path: "" });
    ev("NodeEnd", { path: "a", status: "completed", replayed: true, outputs: { a: "1" }, durationMs: 0 });
    ev("NodeEnd", { path: "sub", status: "completed", replayed: true, outputs: {}, durationMs: 0 });
    expect(node("a")).toMatchObject({ state: "completed", earlier: true, outputs: { a: "1" } });
  });

  it("a node's diff says what its outputs replaced", () => {
    ev("RunStart", { depth: 0, graph: "g", path: "" });
    ev("NodeStart", { path: "inc", inputs: {} });
    ev("NodeEnd", { path: "inc", status: "completed", replayed: false, outputs: { n: "1" }, durationMs: 1 });
    ev("NodeStart", { path: "inc", inputs: {} });
    ev("NodeEnd", { path: "inc", status: "completed", replayed: false, outputs: { n: "2" }, durationMs: 1 });
    expect(node("inc").diff).toEqual({ n: { before: "1", after: "2" } });
  });

  it("a map's progress: done/total while it runs, N stopped / M done once a stop cut it short", () => {
    ev("RunStart", { depth: 0, graph: "g", path: "" });
    ev("NodeStart", { path: "m", inputs: {} });
    for (let i = 0; i < 300; i++) ev("RunStart", { depth: 1, path: "m", item: i });
    for (let i = 0; i < 75; i++) ev("RunEnd", { path: "m", item: i, status: "completed", durationMs: 1 });
    ev("MapProgress", { path: "m", completed: 75, total: 300 });
    expect(progressOf(node("m"))).toBe("75/300");
    // The runtime counts every finished item, stopped ones too: 300/300.
    for (let i = 75; i < 300; i++) ev("RunEnd", { path: "m", item: i, status: "stopped", durationMs: 1 });
    ev("MapProgress", { path: "m", completed: 300, total: 300 });
    ev("NodeEnd", { path: "m", status: "stopped", replayed: false, outputs: {}, durationMs: 9 });
    expect(progressOf(node("m"))).toBe("225 stopped / 75 done");
  });

  it("items that failed are counted as failed; items that never started count as stopped", () => {
    ev("RunStart", { depth: 0, graph: "g", path: "" });
    ev("NodeStart", { path: "m", inputs: {} });
    for (let i = 0; i < 10; i++) ev("RunStart", { depth: 1, path: "m", item: i });
    for (let i = 0; i < 8; i++) ev("RunEnd", { path: "m", item: i, status: "completed", durationMs: 1 });
    ev("RunEnd", { path: "m", item: 8, status: "failed", durationMs: 1 });
    ev("MapProgress", { path: "m", completed: 9, total: 20 });
    expect(progressOf(node("m"))).toBe("8 done / 1 failed");
    ev("NodeError", { path: "m", error: "boom", attempt: 1, willRetry: false });
    expect(progressOf(node("m"))).toBe("11 stopped / 8 done / 1 failed");
  });

  it("a node waiting for a permit of its concurrency limit shows as waiting until it starts", () => {
    ev("RunStart", { depth: 0, graph: "g", path: "" });
    ev("NodeWaiting", {
      path: "callModel",
      nodeName: "callModel",
      limitKind: "concurrency",
      where: "runner",
      key: "acme",
      limit: 2,
      active: 2,
      queued: 1,
    });
    expect(node("callModel")).toMatchObject({
      state: "waiting",
      waiting: { kind: "concurrency", where: "runner", key: "acme", limit: 2, active: 2, queued: 1 },
    });
    ev("NodeStart", { path: "callModel", inputs: {} });
    expect(node("callModel")).toMatchObject({ state: "running", waiting: undefined });
  });

  it("EventsDropped: a run whose start was dropped is shown from what arrives next, with the dropped count", () => {
    ev("EventsDropped", { count: 40, dropped: 40 });
    const run = state.runs.get("w") as unknown as { status: string; dropped: number };
    expect(run).toMatchObject({ status: "running", dropped: 40 });
    ev("NodeEnd", { path: "n7", status: "completed", replayed: false, outputs: { v7: "8" }, durationMs: 1 });
    ev("RunEnd", { path: "", status: "completed" });
    expect(node("n7").state).toBe("completed");
    expect(run.status).toBe("completed");
    // A later drop (a resume read late) adds up; a resume keeps the count.
    ev("RunStart", { depth: 0, graph: "g", path: "" });
    ev("EventsDropped", { count: 2, dropped: 42 });
    expect((state.runs.get("w") as unknown as { dropped: number }).dropped).toBe(42);
  });
});
