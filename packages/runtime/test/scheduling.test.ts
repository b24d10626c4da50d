import { END, Graph, ifElse, node, route } from "@graph/core";
import { describe, expect, it } from "vitest";
import { type GraphEvent, isInfiniteLoopError, isRoutingError, Runner } from "../src/index.js";

const runner = new Runner();

function recorder() {
  const calls: string[] = [];
  const n = (
    name: string,
    output: string | string[] | undefined,
    inputs: string[],
    fn: (v: Record<string, any>) => unknown,
  ) =>
    node({ name, inputs, ...(output === undefined ? {} : { output }) }, (v: Record<string, any>) => {
      calls.push(name);
      return fn(v);
    });
  return { calls, n };
}

describe("value resolution: edge → input → bound → default", () => {
  it("uses the first source that has a value", async () => {
    const use = node(
      { name: "use", inputs: ["a", "b", "c", "d"], output: "out", defaults: { c: "default-c", d: "default-d" } },
      ({ a, b, c, d }: any) => [a, b, c, d].join(","),
    );
    const g = new Graph([use]).bind({ b: "bound-b", c: "bound-c" });
    const r = await runner.run(g, { values: { a: "input-a", b: "input-b" } });
    expect(r.values.out).toBe("input-a,input-b,bound-c,default-d");
  });

  it("an edge value wins over a supplied input once its producer ran", async () => {
    const make = node({ name: "make", inputs: ["seed"], output: "x" }, ({ seed }: any) => `made-${seed}`);
    const use = node({ name: "use", inputs: ["x"], output: "y" }, ({ x }: any) => x);
    const r = await runner.run(new Graph([make, use]), { values: { seed: 1 } });
    expect(r.values.y).toBe("made-1");
  });

  it("defaults are fresh per run", async () => {
    const push = node({ name: "push", inputs: ["list"], output: "out", defaults: { list: [] } }, ({ list }: any) => {
      list.push(1);
      return list.length;
    });
    const g = new Graph([push]);
    expect((await runner.run(g)).values.out).toBe(1);
    expect((await runner.run(g)).values.out).toBe(1);
  });

  it("destructuring defaults apply when nothing is supplied", async () => {
    const f = node({ name: "f", output: "out" }, ({ x, k = 3 }: { x: number; k?: number }) => x * k);
    expect((await runner.run(new Graph([f]), { values: { x: 2 } })).values.out).toBe(6);
  });
});

describe("supersteps and skipping", () => {
  it("supplying a node's outputs skips it", async () => {
    const { calls, n } = recorder();
    const embed = n("embed", "embedding", ["text"], ({ text }) => text.length);
    const score = n("score", "score", ["embedding"], ({ embedding }) => embedding * 2);
    const r = await runner.run(new Graph([embed, score]), { values: { embedding: 21 } });
    expect(calls).toEqual(["score"]);
    expect(r.values).toEqual({ score: 42 });
  });

  it("runs independent nodes in one superstep, bounded by a shared maxConcurrency", async () => {
    let live = 0;
    let peak = 0;
    const mk = (i: number) =>
      node({ name: `w${i}`, inputs: ["x"], output: `o${i}` }, async ({ x }: any) => {
        live++;
        peak = Math.max(peak, live);
        await new Promise((r) => setTimeout(r, 15));
        live--;
        return x + i;
      });
    const events: GraphEvent[] = [];
    const limited = new Runner({ maxConcurrency: 2, eventProcessors: [{ onEvent: (e) => void events.push(e) }] });
    const r = await limited.run(new Graph([mk(1), mk(2), mk(3), mk(4), mk(5)]), { values: { x: 10 } });
    expect(r.values).toEqual({ o1: 11, o2: 12, o3: 13, o4: 14, o5: 15 });
    expect(peak).toBe(2);
    expect(events.filter((e) => e.type === "SuperstepStart")).toHaveLength(1);
  });

  it("the concurrency limit is shared with nested graphs and map items", async () => {
    let live = 0;
    let peak = 0;
    const work = node({ name: "work", output: "y" }, async ({ x }: { x: number }) => {
      live++;
      peak = Math.max(peak, live);
      await new Promise((r) => setTimeout(r, 5));
      live--;
      return x * 2;
    });
    const inner = new Graph([work], { name: "inner" });
    const side = node({ name: "side", output: "z" }, async ({ x }: { x: number[] }) => {
      live++;
      peak = Math.max(peak, live);
      await new Promise((r) => setTimeout(r, 5));
      live--;
      return x.length;
    });
    const limited = new Runner({ maxConcurrency: 3 });
    const r = await limited.run(new Graph([inner.asNode().mapOver("x"), side]), {
      values: { x: [1, 2, 3, 4, 5, 6, 7, 8] },
    });
    expect(r.values.y).toEqual([2, 4, 6, 8, 10, 12, 14, 16]);
    expect(peak).toBeLessThanOrEqual(3);
  });

  it("a downstream node with defaults waits for its upstream and runs once", async () => {
    const { calls, n } = recorder();
    const a = n("a", "x", ["seed"], ({ seed }) => seed + 1);
    const b = n("b", "y", ["x"], ({ x }) => x + 1);
    const c = node({ name: "c", inputs: ["y"], output: "z", defaults: { y: 0 } }, ({ y }: any) => {
      calls.push("c");
      return y * 10;
    });
    const r = await runner.run(new Graph([a, b, c]), { values: { seed: 0 } });
    expect(calls).toEqual(["a", "b", "c"]);
    expect(r.values.z).toBe(20);
  });

  it("side-effect nodes (no outputs) run once", async () => {
    const seen: unknown[] = [];
    const log = node({ name: "log", inputs: ["msg"] }, ({ msg }: any) => void seen.push(msg));
    const r = await runner.run(new Graph([log]), { values: { msg: "hi" } });
    expect(seen).toEqual(["hi"]);
    expect(r.values).toEqual({});
  });

  it("multi-output nodes: arrays and objects, arity errors", async () => {
    const split = node({ name: "split", inputs: ["x"], output: ["first", "second"] }, ({ x }: any) => [x, x + 1]);
    expect((await runner.run(new Graph([split]), { values: { x: 1 } })).values).toEqual({ first: 1, second: 2 });
    const bad = node({ name: "split", inputs: ["x"], output: ["first", "second"] }, ({ x }: any) => [x, x, x]);
    const failed = await runner.run(new Graph([bad]), { values: { x: 1 }, errorHandling: "continue" });
    expect(failed.status).toBe("failed");
    expect(String((failed.error as Error).message)).toContain("Node 'split' has 2 outputs but returned 3 values");
  });
});

describe("cycles", () => {
  it("counter(count) -> count runs once", async () => {
    const { calls, n } = recorder();
    const counter = n("counter", "count", ["count"], ({ count }) => count + 1);
    const r = await runner.run(new Graph([counter]), { values: { count: 5 } });
    expect(calls).toEqual(["counter"]);
    expect(r.values.count).toBe(6);
  });

  it("accumulate(messages) -> messages does not retrigger itself", async () => {
    const { calls, n } = recorder();
    const acc = n("accumulate", "messages", ["messages", "msg"], ({ messages, msg }) => [...messages, msg]);
    const r = await runner.run(new Graph([acc]), { values: { messages: ["a"], msg: "b" } });
    expect(calls).toEqual(["accumulate"]);
    expect(r.values.messages).toEqual(["a", "b"]);
  });

  it("a 20-iteration agent loop: exact call counts, downstream runs once with the final value", async () => {
    const { calls, n } = recorder();
    const increment = n("increment", "count", ["count"], ({ count }) => count + 1);
    const check = route({ name: "check", targets: ["increment", END] }, ({ count }: any) => {
      calls.push("check");
      return count >= 20 ? END : "increment";
    });
    const report = n("report", "summary", ["count"], ({ count }) => `done at ${count}`);
    const r = await runner.run(new Graph([increment, check, report]), { values: { count: 0 } });
    expect(calls.filter((c) => c === "increment")).toHaveLength(20);
    expect(calls.filter((c) => c === "check")).toHaveLength(20);
    expect(calls.filter((c) => c === "report")).toHaveLength(1);
    expect(calls.at(-1)).toBe("report");
    expect(r.values).toMatchObject({ count: 20, summary: "done at 20" });
  });

  it("entrypoint picks which node of the cycle runs first (while vs do-while)", async () => {
    const build = (entrypoint?: string) => {
      const { calls, n } = recorder();
      const increment = n("increment", "count", ["count"], ({ count }) => count + 1);
      const check = route({ name: "check", targets: ["increment", END] }, ({ count }: any) => {
        calls.push("check");
        return count >= 1 ? END : "increment";
      });
      return { calls, graph: new Graph([increment, check], entrypoint === undefined ? {} : { entrypoint }) };
    };
    const doWhile = build();
    await runner.run(doWhile.graph, { values: { count: 5 } });
    expect(doWhile.calls).toEqual(["increment", "check"]);
    const whileLoop = build("check");
    const r = await runner.run(whileLoop.graph, { values: { count: 5 } });
    expect(whileLoop.calls).toEqual(["check"]);
    expect(r.values).toEqual({});
  });

  it("maxIterations → InfiniteLoopError naming the nodes still cycling", async () => {
    const increment = node({ name: "increment", output: "count" }, ({ count }: { count: number }) => count + 1);
    const forever = route({ name: "forever", targets: ["increment", END] }, ({ count }: { count: number }) =>
      count < 0 ? END : "increment",
    );
    const error = await runner
      .run(new Graph([increment, forever]), { values: { count: 0 }, maxIterations: 25 })
      .catch((e) => e);
    expect(isInfiniteLoopError(error)).toBe(true);
    expect(error.nodes).toEqual(["increment", "forever"]);
    expect(error.maxIterations).toBe(25);
    // maxIterations bounds how often one node runs (v2), not supersteps: 'increment' is the one that would run a 26th time.
    expect(error.nodeName).toBe("increment");
    expect(error.message).toContain("Node 'increment' would run more than 25 times in one run (maxIterations: 25)");
  });

  it("a chat with bind({ messages: [] }) runs each node once per turn", async () => {
    const { calls, n } = recorder();
    const getResponse = n(
      "getResponse",
      "response",
      ["messages", "userInput"],
      ({ messages, userInput }) => `re:${userInput}#${messages.length}`,
    );
    const updateMessages = n(
      "updateMessages",
      "messages",
      ["messages", "userInput", "response"],
      ({ messages, userInput, response }) => [...messages, userInput, response],
    );
    const chat = new Graph([getResponse, updateMessages]).bind({ messages: [] });
    const r = await runner.run(chat, { values: { userInput: "hi" } });
    expect(calls).toEqual(["getResponse", "updateMessages"]);
    expect(r.values).toEqual({ response: "re:hi#0", messages: ["hi", "re:hi#0"] });
  });
});

describe("gates", () => {
  it("route decides before its targets; the unchosen branch does not run", async () => {
    const { calls, n } = recorder();
    const classify = route({ name: "classify", targets: ["billing", "tech"] }, ({ kind }: any) => {
      calls.push("classify");
      return kind;
    });
    const billing = n("billing", "answer", ["ticket"], ({ ticket }) => `billing:${ticket}`);
    const tech = n("tech", "answer", ["ticket"], ({ ticket }) => `tech:${ticket}`);
    const r = await runner.run(new Graph([classify, billing, tech]), { values: { kind: "tech", ticket: "t1" } });
    expect(calls).toEqual(["classify", "tech"]);
    expect(r.values).toEqual({ answer: "tech:t1" });
  });

  it("multiTarget runs several targets in parallel", async () => {
    const { calls, n } = recorder();
    const fan = route({ name: "fan", targets: ["a", "b", "c"], multiTarget: true }, () => ["a", "c"]);
    const a = n("a", "x", ["q"], () => 1);
    const b = n("b", "y", ["q"], () => 2);
    const c = n("c", "z", ["q"], () => 3);
    const events: GraphEvent[] = [];
    const r = await new Runner({ eventProcessors: [{ onEvent: (e) => void events.push(e) }] }).run(
      new Graph([fan, a, b, c]),
      { values: { q: 0 } },
    );
    expect(r.values).toEqual({ x: 1, z: 3 });
    expect(calls).toEqual(["a", "c"]);
    const steps = events
      .filter((e) => e.type === "SuperstepStart")
      .map((e) => (e as { nodes: readonly string[] }).nodes);
    expect(steps).toEqual([["fan"], ["a", "c"]]);
  });

  it("fallback is used when the gate returns undefined; no fallback ⇒ nothing runs", async () => {
    const mk = (fallback?: string) => {
      const gate = route({ name: "gate", targets: ["a", "b"], ...(fallback ? { fallback } : {}) }, () => undefined);
      const a = node({ name: "a", inputs: ["q"], output: "x" }, () => "a");
      const b = node({ name: "b", inputs: ["q"], output: "y" }, () => "b");
      return new Graph([gate, a, b]);
    };
    expect((await runner.run(mk("b"), { values: { q: 1 } })).values).toEqual({ y: "b" });
    expect((await runner.run(mk(), { values: { q: 1 } })).values).toEqual({});
  });

  it("END stops that path; blocking is transitive through gate chains", async () => {
    const { calls, n } = recorder();
    const first = route({ name: "first", targets: ["second", "other", END] }, () => "other");
    const second = ifElse({ name: "second", whenTrue: "deep", whenFalse: "shallow" }, () => {
      calls.push("second");
      return true;
    });
    const deep = n("deep", "d", ["q"], () => "deep");
    const shallow = n("shallow", "s", ["q"], () => "shallow");
    const other = n("other", "o", ["q"], () => "other");
    const r = await runner.run(new Graph([first, second, deep, shallow, other]), { values: { q: 1 } });
    expect(calls).toEqual(["other"]);
    expect(r.values).toEqual({ o: "other" });
  });

  it("an undeclared target fails the run with RoutingError carrying the value", async () => {
    const gate = route({ name: "gate", targets: ["retrieve", END] }, () => "retreive");
    const retrieve = node({ name: "retrieve", inputs: ["q"], output: "docs" }, () => []);
    const error = await runner.run(new Graph([gate, retrieve]), { values: { q: 1 } }).catch((e) => e);
    expect(isRoutingError(error)).toBe(true);
    expect(error.value).toBe("retreive");
    expect(error.message).toContain("Did you mean 'retrieve'?");
  });

  it("ifElse with a non-boolean fails with RoutingError", async () => {
    const gate = ifElse({ name: "gate", whenTrue: "a", whenFalse: END }, () => "yes");
    const a = node({ name: "a", inputs: ["q"], output: "x" }, () => 1);
    const error = await runner.run(new Graph([gate, a]), { values: { q: 1 } }).catch((e) => e);
    expect(error._tag).toBe("RoutingError");
    expect(error.value).toBe("yes");
  });
});
