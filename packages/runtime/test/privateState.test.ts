import { MemoryCheckpointer } from "@graph/checkpoint";
import { type AnyNode, END, Graph, GraphConfigError, node, route } from "@graph/core";
import { describe, expect, it } from "vitest";
import { type MapDispatchRequest, Runner } from "../src/index.js";
import { runMapItem } from "../src/worker.js";
import { privateLoopStateSurvivesResume, privateLoopStateSurvivesStop } from "./workflows/privateState.js";

// A nested graph's own loop state (a value it reads and writes and seeds itself) is private to each call: each
// call, each map item and each turn of an outer loop starts from the nested graph's seed, unless the parent maps
// the value in by name. Every case runs without a store and with one (a child run then restores its history).

const stores = [
  ["no store", () => new Runner()],
  ["a store", () => new Runner({ checkpointer: new MemoryCheckpointer() })],
] as const;

/** The sub-agent of the examples: one step that appends its item to its own history. */
function one(calls: string[] = []) {
  const work = node(
    { name: "work", output: "log" },
    ({ item, log }: { item: string; log: readonly string[] }): string[] => {
      calls.push(`${item} after ${JSON.stringify(log)}`);
      return [...log, item];
    },
  );
  return new Graph([work], { name: "one" }).bind({ log: [] });
}

/** One mapped copy of `one` inside an agent loop: `plan` gives the turn's tasks, `next` counts turns. */
function agentLoop(sub: ReturnType<typeof one>, seen: unknown[]) {
  const plan = node({ name: "plan", output: "tasks" }, ({ turn }: { turn: number }) => [`r${turn}`]);
  const next = node({ name: "next", output: "turn" }, ({ log, turn }: { log: unknown; turn: number }) => {
    seen.push(log);
    return turn + 1;
  });
  const more = route({ name: "more", targets: ["plan", END] }, ({ turn }: { turn: number }) =>
    turn < 2 ? "plan" : END,
  );
  const worker = sub.asNode({ name: "worker" }).withInputs({ item: "tasks" }).mapOver("tasks");
  return new Graph([plan, worker, next, more], { entrypoint: "plan" });
}

describe("two copies of one sub-agent", () => {
  for (const [label, runner] of stores) {
    it(`each copy starts from its own seed, not the other copy's collected history (${label})`, async () => {
      const calls: string[] = [];
      const first = one(calls).asNode({ name: "first" }).withInputs({ item: "a" }).mapOver(["a"]);
      const second = one(calls)
        .asNode({ name: "second" })
        .withInputs({ item: "b" })
        .withOutputs({ log: "log2" })
        .mapOver(["b"]);
      expect(first.inputs).toEqual(["a"]);
      expect(second.inputs).toEqual(["b"]);
      expect(first.privateState).toEqual(["log"]);
      const g = new Graph([first, second]);
      expect(g.edges).toEqual([]); // `second` no longer reads `first`'s log
      const r = await runner().run(g, { values: { a: ["x", "y"], b: ["z"] } });
      expect(r.status).toBe("completed");
      expect(r.values.log).toEqual([["x"], ["y"]]);
      expect(r.values.log2).toEqual([["z"]]);
      expect([...calls].sort()).toEqual(["x after []", "y after []", "z after []"]);
    });
  }
});

describe("a mapped sub-agent inside an agent loop", () => {
  for (const [label, runner] of stores) {
    it(`on the second turn each item starts from its own seed (${label})`, async () => {
      const calls: string[] = [];
      const seen: unknown[] = [];
      const r = await runner().run(agentLoop(one(calls), seen), { values: { turn: 0 } });
      expect(r.status).toBe("completed");
      expect(seen).toEqual([[["r0"]], [["r1"]]]);
      expect(r.values.log).toEqual([["r1"]]);
      expect(calls).toEqual(["r0 after []", "r1 after []"]);
    });
  }

  it("two items per turn, three turns: every item of every turn starts from []", async () => {
    const calls: string[] = [];
    const plan = node({ name: "plan", output: "tasks" }, ({ turn }: { turn: number }) => [`p${turn}`, `q${turn}`]);
    const next = node({ name: "next", output: "turn" }, ({ log, turn }: { log: unknown; turn: number }) =>
      log === undefined ? turn : turn + 1,
    );
    const more = route({ name: "more", targets: ["plan", END] }, ({ turn }: { turn: number }) =>
      turn < 3 ? "plan" : END,
    );
    const worker = one(calls).asNode({ name: "worker" }).withInputs({ item: "tasks" }).mapOver("tasks");
    const g = new Graph([plan, worker, next, more], { entrypoint: "plan" });
    const r = await new Runner({ checkpointer: new MemoryCheckpointer() }).run(g, {
      workflowId: "three-turns",
      values: { turn: 0 },
    });
    expect(r.values.log).toEqual([["p2"], ["q2"]]);
    expect([...calls].sort()).toEqual(["p0", "p1", "p2", "q0", "q1", "q2"].map((i) => `${i} after []`));
  });

  it("the mapped node, mapping the history in under its own name, is refused at build with the fix", () => {
    const worker = one().asNode({ name: "worker" }).withInputs({ item: "tasks", log: "log" }).mapOver("tasks");
    expect(worker.inputs).toEqual(["tasks", "log"]);
    const build = () => new Graph([worker] as AnyNode[]);
    expect(build).toThrow(GraphConfigError);
    expect(build).toThrow(/GraphNode 'worker' maps over 'tasks' and also takes 'log', which it writes itself/);
    expect(build).toThrow(/How to fix: rename its output, \.withOutputs\(\{ log: "logs" \}\)/);
    // the fix: each item is then seeded with the caller's `log` (its own seed when the caller passes none)
    const fixed = new Graph([worker.withOutputs({ log: "logs" })]);
    expect(fixed.inputs.required).toEqual(new Set(["tasks"]));
    expect(fixed.inputs.optional).toEqual(new Set(["log"]));
  });

  it("a sub-agent whose history has no seed of its own stays an input; mapped and fed back, it is refused", () => {
    const work = node({ name: "work", output: "log" }, ({ item, log }: { item: string; log: string[] }) => [
      ...log,
      item,
    ]);
    const unseeded = new Graph([work], { name: "unseeded" });
    expect(unseeded.privateState).toEqual([]);
    const mapped = unseeded.asNode().withInputs({ item: "tasks" }).mapOver("tasks");
    expect(mapped.inputs).toEqual(["tasks", "log"]);
    const error = (() => {
      try {
        new Graph([mapped] as AnyNode[]);
      } catch (e) {
        return e as GraphConfigError;
      }
      return undefined;
    })();
    expect(error?._tag).toBe("GraphConfigError");
    expect(error?.message).toContain("'unseeded' maps over 'tasks' and also takes 'log'");
    // mapping over the history too is fine: each item takes its own entry of the previous call's list
    const perItem = unseeded.asNode().withInputs({ item: "tasks" }).mapOver(["tasks", "log"]);
    expect(() => new Graph([perItem])).not.toThrow();
  });
});

describe("map items run by another process (a mapDispatcher)", () => {
  it("on the second turn each dispatched item starts from its own seed", async () => {
    const calls: string[] = [];
    const seen: unknown[] = [];
    const checkpointer = new MemoryCheckpointer();
    const worker = new Runner({ checkpointer });
    const dispatched: number[] = [];
    const runner = new Runner({
      checkpointer,
      mapDispatcher: {
        minItems: 1,
        async dispatch(request: MapDispatchRequest) {
          dispatched.push(request.count);
          for (let i = 0; i < request.count; i++)
            await runMapItem(worker, request.graph, {
              workflowId: request.itemWorkflowId(i),
              parentWorkflowId: request.parentWorkflowId,
              values: request.items[i]!,
              parentVersions: request.parentVersions,
              fence: request.fence,
              completeOnStop: request.completeOnStop,
              maxIterations: request.maxIterations,
            });
          return "done";
        },
      },
    });
    const r = await runner.run(agentLoop(one(calls), seen), { workflowId: "dispatched", values: { turn: 0 } });
    expect(dispatched).toEqual([1, 1]);
    expect(seen).toEqual([[["r0"]], [["r1"]]]);
    expect(r.values.log).toEqual([["r1"]]);
    expect(calls).toEqual(["r0 after []", "r1 after []"]);
    await runner.close();
    await worker.close();
  });
});

describe("a sub-agent called twice in sequence", () => {
  for (const [label, runner] of stores) {
    it(`the second call does not continue the first call's history (${label})`, async () => {
      const calls: string[] = [];
      const sub = one(calls);
      const a = sub.asNode({ name: "a" }).withInputs({ item: "q1" }).withOutputs({ log: "log1" });
      const b = sub.asNode({ name: "b" }).withInputs({ item: "q2" }).withOutputs({ log: "log2" });
      const q2 = node({ name: "ask", output: "q2" }, ({ log1 }: { log1: string[] }) => `after ${log1.length}`);
      const r = await runner().run(new Graph([a, q2, b]), { values: { q1: "hello" } });
      expect(r.values).toMatchObject({ log1: ["hello"], log2: ["after 1"] });
      expect(calls).toEqual(["hello after []", "after 1 after []"]);
    });
  }

  it("a sub-agent with an inner loop, called on every turn of an outer loop, starts over on each call", async () => {
    const calls: string[] = [];
    const think = node(
      { name: "think", output: "history" },
      ({ question, history }: { question: string; history: string[] }) => {
        calls.push(`${question}:${history.length}`);
        return [...history, `${question}#${history.length}`];
      },
    );
    const enough = route({ name: "enough", targets: ["think", END] }, ({ history }: { history: string[] }) =>
      history.length < 2 ? "think" : END,
    );
    const expert = new Graph([think, enough], { name: "expert", entrypoint: "think" }).bind({ history: [] });
    const ask = node({ name: "ask", output: "question" }, ({ round }: { round: number }) => `q${round}`);
    const tally = node(
      { name: "tally", output: "round" },
      ({ history, round }: { history: string[]; round: number }) => (history.length === 2 ? round + 1 : -1),
    );
    const again = route({ name: "again", targets: ["ask", END] }, ({ round }: { round: number }) =>
      round < 3 ? "ask" : END,
    );
    const outer = new Graph([ask, expert.asNode(), tally, again], { entrypoint: "ask" });
    expect(outer.nodes.get("expert")!.inputs).toEqual(["question"]);
    for (const runner of [new Runner(), new Runner({ checkpointer: new MemoryCheckpointer() })]) {
      calls.length = 0;
      const r = await runner.run(outer, { values: { round: 0 } });
      expect(r.values.round).toBe(3);
      expect(r.values.history).toEqual(["q2#0", "q2#1"]);
      expect(calls).toEqual(["q0:0", "q0:1", "q1:0", "q1:1", "q2:0", "q2:1"]);
    }
  });
});

describe("the parent maps the history in explicitly", () => {
  for (const [label, runner] of stores) {
    it(`withInputs({ log: "history" }) seeds every item of every call with the parent's value (${label})`, async () => {
      const calls: string[] = [];
      const seen: unknown[] = [];
      const worker = one(calls)
        .asNode({ name: "worker" })
        .withInputs({ item: "tasks", log: "history" })
        .mapOver("tasks");
      expect(worker.inputs).toEqual(["tasks", "history"]);
      expect(worker.privateState).toEqual([]);
      const plan = node({ name: "plan", output: "tasks" }, ({ turn }: { turn: number }) => [`r${turn}`, `s${turn}`]);
      const next = node({ name: "next", output: "turn" }, ({ log, turn }: { log: unknown; turn: number }) => {
        seen.push(log);
        return turn + 1;
      });
      const more = route({ name: "more", targets: ["plan", END] }, ({ turn }: { turn: number }) =>
        turn < 2 ? "plan" : END,
      );
      const g = new Graph([plan, worker, next, more], { entrypoint: "plan" });
      const r = await runner().run(g, { workflowId: `seeded-${label}`, values: { turn: 0, history: ["h"] } });
      expect(seen).toEqual([
        [
          ["h", "r0"],
          ["h", "s0"],
        ],
        [
          ["h", "r1"],
          ["h", "s1"],
        ],
      ]);
      expect(r.values.log).toEqual([
        ["h", "r1"],
        ["h", "s1"],
      ]);
      expect([...calls].sort()).toEqual(['r0 after ["h"]', 'r1 after ["h"]', 's0 after ["h"]', 's1 after ["h"]']);
    });
  }

  for (const [label, runner] of stores) {
    it(`an unmapped node given back its own history under the same name continues it on every call (${label})`, async () => {
      const calls: string[] = [];
      const sub = one(calls).asNode({ name: "sub" }).withInputs({ item: "task", log: "log" });
      expect(sub.inputs).toEqual(["task", "log"]);
      const plan = node({ name: "plan", output: "task" }, ({ turn }: { turn: number }) => `t${turn}`);
      const next = node({ name: "next", output: "turn" }, ({ log, turn }: { log: string[]; turn: number }) =>
        log.length === turn + 1 ? turn + 1 : -1,
      );
      const more = route({ name: "more", targets: ["plan", END] }, ({ turn }: { turn: number }) =>
        turn > 0 && turn < 3 ? "plan" : END,
      );
      const g = new Graph([plan, sub, next, more], { entrypoint: "plan" });
      const r = await runner().run(g, { workflowId: `own-${label}`, values: { turn: 0 } });
      expect(r.values.log).toEqual(["t0", "t1", "t2"]);
      expect(calls).toEqual(["t0 after []", 't1 after ["t0"]', 't2 after ["t0","t1"]']);
    });
  }

  it("mapped in but not given: the sub-agent starts from its own seed", async () => {
    const sub = one().asNode({ name: "sub" }).withInputs({ log: "history" });
    expect(sub.hasDefault("history")).toBe(true);
    const g = new Graph([sub]);
    expect(g.inputs.required).toEqual(new Set(["item"]));
    expect(g.inputs.optional).toEqual(new Set(["history"]));
    const r = await new Runner().run(g, { values: { item: "x" } });
    expect(r.values.log).toEqual(["x"]);
    const seeded = await new Runner().run(g, { values: { item: "x", history: ["earlier"] } });
    expect(seeded.values.log).toEqual(["earlier", "x"]);
  });

  it("loop state seeded by a parameter default is private too, and mapped in the same way", async () => {
    const step = node({ name: "step", output: "log" }, ({ item, log = [] }: { item: string; log?: string[] }) => [
      ...log,
      item,
    ]);
    const defaulted = new Graph([step], { name: "defaulted" });
    expect(defaulted.privateState).toEqual(["log"]);
    expect(defaulted.asNode().inputs).toEqual(["item"]);
    const g = new Graph([defaulted.asNode().withInputs({ log: "history" })]);
    expect((await new Runner().run(g, { values: { item: "x" } })).values.log).toEqual(["x"]);
    expect((await new Runner().run(g, { values: { item: "x", history: ["h"] } })).values.log).toEqual(["h", "x"]);
  });

  it("naming a value that is neither an input nor the graph's own loop state is still a RenameError", () => {
    expect(() =>
      one()
        .asNode()
        .withInputs({ lgo: "history" } as never),
    ).toThrow(/Cannot rename input 'lgo' of node 'one'/);
  });
});

describe("values a nested graph only reads stay overridable from outside", () => {
  for (const [label, runner] of stores) {
    it(`a bound model is an optional input of the GraphNode; the parent's value wins (${label})`, async () => {
      const answer = node(
        { name: "answer", output: "log" },
        ({ question, log, model }: { question: string; log: string[]; model: string }) => [
          ...log,
          `${model}:${question}`,
        ],
      );
      const sub = new Graph([answer], { name: "sub" }).bind({ log: [], model: "small" });
      expect(sub.privateState).toEqual(["log"]);
      const n = sub.asNode();
      expect(n.inputs).toEqual(["question", "model"]);
      expect(n.hasDefault("model")).toBe(true);
      const r = await runner().run(new Graph([n]), { values: { question: "q", model: "large" } });
      expect(r.values.log).toEqual(["large:q"]);
      const renamed = new Graph([n.withInputs({ model: "llm" })]);
      const d = await runner().run(renamed, { values: { question: "q" } });
      expect(d.values.log).toEqual(["small:q"]);
    });
  }
});

describe("durable resume of a nested private-state loop", () => {
  it("a call resumed mid-loop keeps its stored state; the next call starts from its seed (memory)", () => {
    const checkpointer = new MemoryCheckpointer();
    return privateLoopStateSurvivesResume(() => ({ checkpointer, close: async () => {} }), "private-memory");
  });

  it("a call stopped mid-loop and resumed goes on from its stored state; the next call starts from its seed", () => {
    const checkpointer = new MemoryCheckpointer();
    return privateLoopStateSurvivesStop(() => ({ checkpointer, close: async () => {} }), "private-stop-memory");
  });
});
