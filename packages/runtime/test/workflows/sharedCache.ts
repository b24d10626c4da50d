import type { ChildProcess } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Checkpointer } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { expect } from "vitest";
import { type GraphEvent, Runner } from "../../src/index.js";

/**
 * The persistent cache across processes and runners, on any checkpointer: a graph of two cached nodes appends a
 * line to `log` per call of either function, so every process's node runs are counted from the file.
 */
function cachedGraph(log: string): Graph {
  const fetchDoc = node({ name: "fetchDoc", output: "doc", cache: true }, async ({ url }: { url: string }) => {
    appendFileSync(log, `fetchDoc:${process.pid}\n`);
    return { url, at: new Date(Date.UTC(2024, 0, 2)), body: `body of ${url}` };
  });
  const index = node({ name: "index", output: "terms", cache: true }, async ({ doc }: { doc: { body: string } }) => {
    appendFileSync(log, `index:${process.pid}\n`);
    return new Map(doc.body.split(" ").map((word, i) => [word, i]));
  });
  return new Graph([fetchDoc, index], { name: "cached-doc" });
}

/** What one process reports: its pid, the values (through the serializer) and its cache hits. */
export interface CachedRunReport {
  readonly pid: number;
  readonly at: string;
  readonly terms: Array<[string, number]>;
  readonly hits: readonly string[];
}

/** The child's side: one run of the graph under a fresh workflow id, reported to the parent. */
export async function runCachedOnce(checkpointer: Checkpointer, log: string, id: string): Promise<CachedRunReport> {
  const hits: string[] = [];
  const runner = new Runner({
    checkpointer,
    cache: { store: "checkpointer", ttl: "7d", maxEntries: 10_000 },
    eventProcessors: [{ onEvent: (e: GraphEvent) => void (e.type === "CacheHit" && hits.push(e.nodeName)) }],
  });
  try {
    const result = await runner.run(cachedGraph(log), { values: { url: "https://x.test/a" }, workflowId: id });
    const doc = result.values["doc"] as { at: Date };
    const terms = result.values["terms"] as Map<string, number>;
    // Instances survive the store's serializer: a Date and a Map, not their JSON shapes.
    if (!(doc.at instanceof Date) || !(terms instanceof Map)) throw new Error("cached values lost their types");
    return { pid: process.pid, at: doc.at.toISOString(), terms: [...terms], hits };
  } finally {
    await runner.close();
  }
}

/**
 * The parent's side: process A runs the graph (both nodes run), then process B — a new workflow on the same store
 * — gets both outputs from the cache: 0 node runs in B, counted from the log file.
 */
export async function cacheSharedByTwoProcesses(spawn: (args: string[]) => ChildProcess): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), "graph-cache-"));
  const log = path.join(dir, "runs.log");
  try {
    const first = await report(spawn([log, `cache-a-${dir.slice(-6)}`]));
    const second = await report(spawn([log, `cache-b-${dir.slice(-6)}`]));
    const lines = existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [];
    expect(lines).toEqual([`fetchDoc:${first.pid}`, `index:${first.pid}`]);
    expect(lines.filter((l) => l.endsWith(`:${second.pid}`))).toHaveLength(0);
    expect(first.hits).toEqual([]);
    expect([...second.hits].sort()).toEqual(["fetchDoc", "index"]);
    expect(second.at).toBe("2024-01-02T00:00:00.000Z");
    expect(second.terms).toEqual([
      ["body", 0],
      ["of", 1],
      ["https://x.test/a", 2],
    ]);
    expect(second.terms).toEqual(first.terms);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(child: ChildProcess): Promise<CachedRunReport> {
  return new Promise((resolve, reject) => {
    child.once("message", (m) => resolve(m as CachedRunReport));
    child.once("error", reject);
    child.once("exit", (code) => code !== 0 && reject(new Error(`cache worker exited with ${code}`)));
  });
}

/**
 * Two runners (each with its own checkpointer instance on one store, as two workers) compute the same key at the
 * same time: both run the node (no lease on the key — documented), one entry is stored, and a third run hits it.
 */
export async function sameKeyAtOnce(make: () => Checkpointer): Promise<void> {
  let inside = 0;
  let release!: () => void;
  const bothInside = new Promise<void>((resolve) => {
    release = resolve;
  });
  let calls = 0;
  const slow = node({ name: "slow", output: "y", cache: true }, async ({ x }: { x: number }) => {
    calls++;
    if (++inside === 2) release();
    await bothInside; // each call waits until both workers are inside: they really overlap
    return { x, by: calls };
  });
  const graph = new Graph([slow], { name: "same-key" });
  const tag = Math.random().toString(36).slice(2, 8);
  const runners = [make(), make(), make()].map(
    (checkpointer) => new Runner({ checkpointer, cache: { store: "checkpointer" } }),
  );
  const [a, b, c] = runners as [Runner, Runner, Runner];
  try {
    const [ra, rb] = await Promise.all([
      a.run(graph, { values: { x: 7 }, workflowId: `same-a-${tag}` }),
      b.run(graph, { values: { x: 7 }, workflowId: `same-b-${tag}` }),
    ]);
    expect(calls).toBe(2);
    const stored = [ra.values["y"], rb.values["y"]];
    const third = await c.run(graph, { values: { x: 7 }, workflowId: `same-c-${tag}` });
    expect(calls).toBe(2);
    // The entry is one of the two results (the last write), whole.
    expect(stored).toContainEqual(third.values["y"]);
  } finally {
    for (const r of runners) await r.close();
  }
}
