import { Graph, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import {
  type GraphEvent,
  isMissingInputError,
  isNodeExecutionError,
  MemoryCache,
  Runner,
  RunResult,
} from "../src/index.js";

function collecting() {
  const events: GraphEvent[] = [];
  return { events, runner: new Runner({ eventProcessors: [{ onEvent: (e) => void events.push(e) }] }) };
}

describe("RunResult and options", () => {
  const inner = new Graph([node({ name: "embed", output: "embedding" }, ({ q }: { q: string }) => [q.length])], {
    name: "rag",
  });
  const answer = node(
    { name: "answer", output: "answer" },
    ({ embedding }: { embedding: number[] }) => `n=${embedding[0]}`,
  );
  const g = new Graph([inner.asNode(), answer]);

  it("select filters values with @graph/select patterns, keeping nesting", async () => {
    const r = await new Runner().run(g, { values: { q: "abc" }, select: ["answer", "rag/*"] });
    expect(Object.keys(r.values)).toEqual(["answer", "rag"]);
    expect(r.get("rag/embedding")).toEqual([3]);
    const only = await new Runner().run(g, { values: { q: "abc" }, select: "**/embedding" });
    expect(only.values.answer).toBeUndefined();
    expect(only.get("rag/embedding")).toEqual([3]);
    expect(only).toBeInstanceOf(RunResult);
  });

  it("toJSON converts nested results", async () => {
    const r = await new Runner().run(g, { values: { q: "ab" } });
    const json = r.toJSON() as { status: string; values: Record<string, unknown> };
    expect(json.status).toBe("completed");
    expect(json.values.rag).toMatchObject({ status: "completed", values: { embedding: [2] } });
    expect(JSON.parse(JSON.stringify(r)).values.answer).toBe("n=2");
  });

  it("errorHandling raise carries node, cause and partial result; continue resolves failed", async () => {
    const ok = node({ name: "ok", output: "a" }, ({ x }: { x: number }) => x + 1);
    const cause = new RangeError("too big");
    const bad = node({ name: "bad", output: "b" }, ({ a }: { a: number }) => {
      if (a > 1) throw cause;
      return a;
    });
    const graph = new Graph([ok, bad]);
    const error = await new Runner().run(graph, { values: { x: 5 } }).catch((e) => e);
    expect(isNodeExecutionError(error)).toBe(true);
    expect(error.nodeName).toBe("bad");
    expect(error.cause).toBe(cause);
    expect(error.partialResult.values).toEqual({ a: 6 });
    const r = await new Runner().run(graph, { values: { x: 5 }, errorHandling: "continue" });
    expect(r.status).toBe("failed");
    expect((r.error as { cause: unknown }).cause).toBe(cause);
    expect(r.values).toEqual({ a: 6 });
  });

  it("MissingInputError lists missing and provided names with the bind hint", async () => {
    // @ts-expect-error: missing input 'q' and unknown 'other' (static errors too)
    const error = await new Runner().run(g, { values: { other: 1 } }).catch((e) => e);
    expect(isMissingInputError(error)).toBe(true);
    expect(error.missing).toEqual(["q"]);
    expect(error.provided).toEqual(["other"]);
    expect(error.message).toContain("graph.bind(");
  });

  // Changed in v2: an unknown value is an error by default (UnknownValueError); unknownValues: "ignore" keeps the
  // old behaviour, a Warning event.
  it("unknown inputs produce a Warning event and the run continues (unknownValues: 'ignore')", async () => {
    const { events, runner } = collecting();
    // @ts-expect-error: unknown input 'extra' (a static error too)
    const r = await runner.run(g, { values: { q: "a", extra: 1 }, unknownValues: "ignore" });
    expect(r.status).toBe("completed");
    const warning = events.find((e) => e.type === "Warning") as { unknownInputs?: readonly string[] } | undefined;
    expect(warning?.unknownInputs).toEqual(["extra"]);
  });

  it("emits events in order with span ids forming a tree", async () => {
    const { events, runner } = collecting();
    await runner.run(g, { values: { q: "a" } });
    const types = events.filter((e) => e.parentSpanId === undefined || e.type !== "NodeStart").map((e) => e.type);
    expect(types[0]).toBe("RunStart");
    expect(types.at(-1)).toBe("RunEnd");
    const outerStart = events.find((e) => e.type === "RunStart" && e.parentSpanId === undefined)!;
    const graphNodeStart = events.find((e) => e.type === "NodeStart" && e.nodeName === "rag")!;
    expect(graphNodeStart.parentSpanId).toBe(outerStart.spanId);
    const innerStart = events.find((e) => e.type === "RunStart" && e.parentSpanId !== undefined)!;
    expect(innerStart.parentSpanId).toBe(graphNodeStart.spanId);
    expect(innerStart.workflowId).toBe(`${outerStart.workflowId}/rag`);
    for (const e of events) {
      expect(typeof e.timestamp).toBe("number");
      expect(e.runId.length).toBeGreaterThan(0);
    }
  });

  it("a failing event processor never fails a run", async () => {
    const runner = new Runner({
      eventProcessors: [
        {
          onEvent: () => {
            throw new Error("processor bug");
          },
        },
        {
          onEvent: async () => {
            throw new Error("async processor bug");
          },
        },
      ],
    });
    const r = await runner.run(g, { values: { q: "a" } });
    expect(r.status).toBe("completed");
  });

  it("cache: opt-in nodes are served from the cache on equal inputs", async () => {
    let calls = 0;
    const slow = node({ name: "slow", output: "y", cache: true }, async ({ x }: { x: number }) => {
      calls++;
      return x * 2;
    });
    const { events } = collecting();
    const runner = new Runner({
      cache: new MemoryCache({ maxEntries: 10 }),
      eventProcessors: [{ onEvent: (e) => void events.push(e) }],
    });
    const graph = new Graph([slow]);
    expect((await runner.run(graph, { values: { x: 2 } })).values.y).toBe(4);
    expect((await runner.run(graph, { values: { x: 2 } })).values.y).toBe(4);
    expect((await runner.run(graph, { values: { x: 3 } })).values.y).toBe(6);
    expect(calls).toBe(2);
    expect(events.filter((e) => e.type === "CacheHit")).toHaveLength(1);
    expect(events.some((e) => e.type === "NodeEnd" && e.cached)).toBe(true);
  });

  it("MemoryCache evicts the least recently used entry", () => {
    const cache = new MemoryCache({ maxEntries: 2 });
    cache.set("a", { v: 1 });
    cache.set("b", { v: 2 });
    cache.get("a");
    cache.set("c", { v: 3 });
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")?.value).toEqual({ v: 1 });
    expect(cache.size).toBe(2);
  });

  it("retry: attempts with backoff, retryOn can stop early", async () => {
    let attempts = 0;
    const flaky = node(
      { name: "flaky", output: "y", retry: { attempts: 3, initialDelayMs: 1 } },
      async ({ x }: { x: number }) => {
        attempts++;
        if (attempts < 3) throw new Error(`fail ${attempts}`);
        return x;
      },
    );
    const { events, runner } = collecting();
    expect((await runner.run(new Graph([flaky]), { values: { x: 1 } })).values.y).toBe(1);
    expect(attempts).toBe(3);
    expect(events.filter((e) => e.type === "NodeError").map((e) => (e as { willRetry: boolean }).willRetry)).toEqual([
      true,
      true,
    ]);

    let tries = 0;
    const fatal = node(
      {
        name: "fatal",
        output: "y",
        retry: { attempts: 5, initialDelayMs: 1, retryOn: (e) => !(e instanceof TypeError) },
      },
      async () => {
        tries++;
        throw new TypeError("no");
      },
    );
    const error = await new Runner().run(new Graph([fatal]), { values: {} }).catch((e) => e);
    expect(tries).toBe(1);
    expect(error.cause).toBeInstanceOf(TypeError);
  });

  it("timeoutMs fails an attempt that takes too long and aborts its signal", async () => {
    let aborted = false;
    const slow = node(
      { name: "slow", output: "y", timeoutMs: 20, inputs: [] },
      async (_: Record<string, never>, ctx) => {
        ctx.signal.addEventListener("abort", () => (aborted = true));
        await new Promise((r) => setTimeout(r, 200));
        return 1;
      },
    );
    const error = await new Runner().run(new Graph([slow])).catch((e) => e);
    expect(isNodeExecutionError(error)).toBe(true);
    expect(error.cause.message).toContain("timed out after 20 ms");
    expect(aborted).toBe(true);
  });

  it("runSync runs sync graphs and matches run()", async () => {
    const a = node({ name: "a", output: "b" }, ({ x }: { x: number }) => x + 1);
    const b = node({ name: "b2", output: "c" }, ({ b }: { b: number }) => b * 2);
    const runner = new Runner();
    const sync = runner.runSync(new Graph([a, b]), { values: { x: 1 } });
    const asyncResult = await runner.run(new Graph([a, b]), { values: { x: 1 } });
    expect(sync.values).toEqual({ b: 2, c: 4 });
    expect(sync.values).toEqual(asyncResult.values);
  });
});
