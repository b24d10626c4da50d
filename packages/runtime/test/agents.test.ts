import { type AnyNode, END, Graph, node, route } from "@graph/core";
import { describe, expect, it } from "vitest";
import { type GraphEvent, Runner } from "../src/index.js";

// Multi-agent patterns as people write them (LangGraph.js supervisors and handoffs, Inngest AgentKit networks,
// reflection loops), with async node functions standing in for model calls. Each is run in every listing of its
// nodes: the calls and the result must not depend on the order (SPEC §10).

/** Stand-in for a model call: real async work that resolves on a later tick. */
const later = <T>(value: T): Promise<T> => new Promise((resolve) => setTimeout(() => resolve(value), 1));

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((x, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((p) => [x, ...p]));
}

/** Runs the graph built from every listing of its nodes; returns each run's calls and values. */
async function everyListing(
  make: (calls: string[]) => { nodes: AnyNode[]; build: (nodes: AnyNode[]) => Graph },
  values: Record<string, unknown> = {},
) {
  const { nodes } = make([]);
  const runs: { order: string; calls: string; values: Record<string, unknown>; status: string }[] = [];
  for (const order of permutations(nodes.map((_, i) => i))) {
    const calls: string[] = [];
    const fresh = make(calls);
    const graph = fresh.build(order.map((i) => fresh.nodes[i]!));
    const result = await new Runner().run(graph, { values });
    runs.push({
      order: order.map((i) => fresh.nodes[i]!.name).join(","),
      calls: calls.join(" "),
      values: { ...result.values },
      status: result.status,
    });
  }
  return runs;
}

describe("the supervisor of issue 21 (a router loop over a shared history)", () => {
  const make =
    (pickReadsLog: boolean, defaultOpen = true) =>
    (calls: string[]) => {
      const workerA = node({ output: "res" }, async function workerA({ log }: { log: string[] }) {
        calls.push("A");
        return later(`A${log.length}`);
      });
      const workerB = node({ output: "res" }, async function workerB({ log }: { log: string[] }) {
        calls.push("B");
        return later(`B${log.length}`);
      });
      const supervisor = node({ output: "next" }, async function supervisor({ log }: { log: string[] }) {
        calls.push("supervisor");
        return later(log.length < 3 ? "workerB" : "FINISH");
      });
      const pick = pickReadsLog
        ? route(
            { name: "pick", targets: ["workerA", "workerB", END], defaultOpen },
            ({ next, log }: { next: string; log: string[] }) => (next === "FINISH" || log.length > 10 ? END : next),
          )
        : route({ name: "pick", targets: ["workerA", "workerB", END], defaultOpen }, ({ next }: { next: string }) =>
            next === "FINISH" ? END : next,
          );
      const append = node({ output: "log" }, async function append({ log, res }: { log: string[]; res: string }) {
        calls.push("append");
        return later([...log, res]);
      });
      return {
        nodes: [supervisor, pick, workerA, workerB, append] as AnyNode[],
        build: (nodes: AnyNode[]) => new Graph(nodes, { entrypoint: "supervisor" }).bind({ log: [] }),
      };
    };

  for (const pickReadsLog of [false, true]) {
    it(`returns B0 B1 B2 in all 120 listings${pickReadsLog ? " (the gate also reads the history)" : ""}`, async () => {
      const runs = await everyListing(make(pickReadsLog));
      expect(runs).toHaveLength(120);
      for (const run of runs) {
        expect({ order: run.order, status: run.status, log: run.values.log }).toEqual({
          order: run.order,
          status: "completed",
          log: ["B0", "B1", "B2"],
        });
        expect(run.calls).toBe("supervisor B append supervisor B append supervisor B append supervisor");
      }
    }, 60_000);
  }

  it("the issue's exact listing, with workerA before workerB", async () => {
    const { nodes, build } = make(false)([]);
    const graph = build(nodes);
    const a = graph.analysis;
    expect(a.isFeedback("append", "supervisor")).toBe(true);
    expect(a.isFeedback("append", "workerA")).toBe(true);
    expect(a.isFeedback("append", "workerB")).toBe(true);
    expect(a.isFeedback("workerB", "append")).toBe(false);
    expect(graph.warnings).toEqual([]);
  });

  it("without its entrypoint (pick defaultOpen: false): the history `log` is an accumulator, so the supervisor starts it, in all 120 listings", async () => {
    for (const pickReadsLog of [false, true]) {
      const runs = await everyListing((calls) => ({
        ...make(pickReadsLog, false)(calls),
        build: (nodes: AnyNode[]) => new Graph(nodes).bind({ log: [] }),
      }));
      expect(runs).toHaveLength(120);
      for (const run of runs) {
        expect({ order: run.order, status: run.status, log: run.values.log }).toEqual({
          order: run.order,
          status: "completed",
          log: ["B0", "B1", "B2"],
        });
        expect(run.calls).toBe("supervisor B append supervisor B append supervisor B append supervisor");
      }
    }
    const { nodes } = make(false, false)([]);
    const graph = new Graph(nodes).bind({ log: [] });
    expect(graph.warnings).toEqual([]);
    expect(graph.analysis.loopEntries("supervisor")).toEqual(["supervisor"]);
  }, 60_000);
});

describe("chained gates inside a cycle (regression)", () => {
  const make = (calls: string[]) => {
    const increment = node({ name: "increment", output: "count" }, async ({ count }: { count: number }) => {
      calls.push("increment");
      return later(count + 1);
    });
    const gateOuter = route({ name: "gateOuter", targets: ["gateInner", END] }, ({ count }: { count: number }) => {
      calls.push("gateOuter");
      return count < 3 ? "gateInner" : END;
    });
    const gateInner = route({ name: "gateInner", targets: ["increment", END] }, ({ count }: { count: number }) => {
      calls.push("gateInner");
      return count < 3 ? "increment" : END;
    });
    return {
      nodes: [gateOuter, gateInner, increment] as AnyNode[],
      build: (nodes: AnyNode[]) => new Graph(nodes, { entrypoint: "increment" }),
    };
  };

  it("gateOuter → gateInner → increment with entrypoint increment counts to 3 (was: values {})", async () => {
    const runs = await everyListing(make, { count: 0 });
    for (const run of runs) {
      expect(run.values).toEqual({ count: 3 });
      expect(run.calls).toBe("increment gateOuter gateInner increment gateOuter gateInner increment gateOuter");
    }
  });

  it("without its entrypoint the structure leaves a tie (warned): gateInner, first by name, starts it, in all 6 listings", async () => {
    // `count` is an accumulator, so every node may start the loop; of the gate targets, gateInner sorts first. The
    // outer gate only reads the loop's seed, so it waits for the loop to write it: gateInner decides first.
    const runs = await everyListing((calls) => ({ ...make(calls), build: (nodes: AnyNode[]) => new Graph(nodes) }), {
      count: 0,
    });
    for (const run of runs) {
      expect(run.values).toEqual({ count: 3 });
      expect(run.calls).toBe(
        "gateInner increment gateOuter gateInner increment gateOuter gateInner increment gateOuter",
      );
    }
    expect(new Graph(make([]).nodes).warnings).toEqual([
      "The cycle 'gateInner', 'gateOuter', 'increment' has no entrypoint, and its structure does not decide which node starts it: 'gateInner', 'increment' qualify equally. Chose 'gateInner' (first by name).\n" +
        "  How to fix: set entrypoint to the node that should run first, or make the loop's state explicit with bind() or a default.",
    ]);
  });

  it("a gate upstream that decided END still blocks the chain (transitive blocking holds)", async () => {
    const calls: string[] = [];
    const work = node({ name: "work", output: "done" }, ({ count }: { count: number }) => {
      calls.push("work");
      return count;
    });
    const outer = route({ name: "outer", targets: ["inner", END] }, ({ go }: { go: boolean }) => (go ? "inner" : END));
    const inner = route({ name: "inner", targets: ["work", END] }, () => "work");
    const result = await new Runner().run(new Graph([work, outer, inner]), { values: { count: 1, go: false } });
    expect(result.values).toEqual({});
    expect(calls).toEqual([]);
  });
});

describe("handoffs between agents (each agent decides who speaks next)", () => {
  // The handoff gate starts the loop with the caller's `handoff`; triage hands off to billing, billing back to
  // triage, triage then to tech, tech finishes. Every agent reads and appends to the same `messages` (they are
  // exclusive branches of the handoff gate).
  const make = (calls: string[], defaultOpen = true) => {
    const agent = (name: string, next: (messages: string[]) => string) =>
      node({ name, output: ["messages", "handoff"] }, async ({ messages }: { messages: string[] }) => {
        calls.push(name);
        return later([[...messages, `${name}:${messages.length}`], next(messages)]);
      });
    const triage = agent("triage", (m) => (m.some((x) => x.startsWith("billing")) ? "tech" : "billing"));
    const billing = agent("billing", () => "triage");
    const tech = agent("tech", () => "FINISH");
    const handoff = route(
      { name: "handoff", targets: ["triage", "billing", "tech", END], defaultOpen },
      ({ handoff }: { handoff: string }) => {
        calls.push("handoff");
        return handoff === "FINISH" ? END : handoff;
      },
    );
    return {
      nodes: [triage, billing, tech, handoff] as AnyNode[],
      build: (nodes: AnyNode[]) => new Graph(nodes, { entrypoint: "handoff" }),
    };
  };

  it("triage → billing → triage → tech, each hand-off decided once, in all 24 listings", async () => {
    const runs = await everyListing(make, {
      messages: ["user: my bill is wrong and the app crashes"],
      handoff: "triage",
    });
    expect(runs).toHaveLength(24);
    for (const run of runs) {
      expect(run.calls).toBe("handoff triage handoff billing handoff triage handoff tech handoff");
      expect(run.values.messages).toEqual([
        "user: my bill is wrong and the app crashes",
        "triage:1",
        "billing:2",
        "triage:3",
        "tech:4",
      ]);
    }
  });

  it("without its entrypoint (handoff defaultOpen: false) the gate starts it: the same hand-offs, in all 24 listings", async () => {
    // The loop starts at the gate; only the cycles among the agents (what they write to each other) tie, as they do
    // with the entrypoint named.
    const { nodes } = make([], false);
    const graph = new Graph(nodes);
    expect(graph.analysis.loopEntries("handoff")).toEqual(["handoff"]);
    expect(graph.warnings).toEqual(new Graph(nodes, { entrypoint: "handoff" }).warnings);
    const runs = await everyListing(
      (calls) => ({ ...make(calls, false), build: (nodes: AnyNode[]) => new Graph(nodes) }),
      {
        messages: ["user: my bill is wrong and the app crashes"],
        handoff: "triage",
      },
    );
    for (const run of runs) {
      expect(run.calls).toBe("handoff triage handoff billing handoff triage handoff tech handoff");
      expect(run.values.messages).toEqual([
        "user: my bill is wrong and the app crashes",
        "triage:1",
        "billing:2",
        "triage:3",
        "tech:4",
      ]);
    }
  });
});

describe("a reflection loop (generate, critique, revise until approved)", () => {
  // The critic reads the draft and its own previous critique; the generator revises with the critique.
  const make = (calls: string[]) => {
    const generate = node(
      { name: "generate", output: "draft" },
      async ({ topic, critique }: { topic: string; critique: string }) => {
        calls.push("generate");
        return later(`${topic} v${critique.length}`);
      },
    );
    const reflect = node(
      { name: "reflect", output: "critique" },
      async ({ draft, critique }: { draft: string; critique: string }) => {
        calls.push("reflect");
        return later(`${critique}${draft.length > 0 ? "x" : ""}`);
      },
    );
    const approved = route({ name: "approved", targets: ["generate", END] }, ({ critique }: { critique: string }) =>
      critique.length >= 3 ? END : "generate",
    );
    return {
      nodes: [generate, reflect, approved] as AnyNode[],
      build: (nodes: AnyNode[]) => new Graph(nodes, { entrypoint: "generate" }).bind({ critique: "" }),
    };
  };

  it("revises until the critique approves: generate reflect ×3, in all 6 listings", async () => {
    const runs = await everyListing(make, { topic: "haiku" });
    expect(runs).toHaveLength(6);
    for (const run of runs) {
      expect(run.calls).toBe("generate reflect generate reflect generate reflect");
      expect(run.values).toEqual({ draft: "haiku v2", critique: "xxx" });
    }
  });

  it("without its entrypoint generate starts it (the only node whose loop input is bound): the same revisions, in all 6 listings", async () => {
    expect(new Graph(make([]).nodes).bind({ critique: "" }).warnings).toEqual([]);
    const runs = await everyListing(
      (calls) => ({ ...make(calls), build: (nodes: AnyNode[]) => new Graph(nodes).bind({ critique: "" }) }),
      { topic: "haiku" },
    );
    for (const run of runs) {
      expect(run.calls).toBe("generate reflect generate reflect generate reflect");
      expect(run.values).toEqual({ draft: "haiku v2", critique: "xxx" });
    }
  });
});

describe("agents that read the history and write it (a shared value read and written by the same nodes)", () => {
  // A supervisor routes between a researcher and a coder; each reads `messages` and returns the extended list
  // (the LangGraph agent-supervisor shape), plus a summarizer after the loop.
  const make = (calls: string[]) => {
    const supervisor = node({ name: "supervisor", output: "next" }, async ({ messages }: { messages: string[] }) => {
      calls.push("supervisor");
      return later(messages.length === 1 ? "researcher" : messages.length === 2 ? "coder" : "FINISH");
    });
    const routeToAgent = route(
      { name: "routeToAgent", targets: ["researcher", "coder", END] },
      ({ next }: { next: string }) => (next === "FINISH" ? END : next),
    );
    const worker = (name: string) =>
      node({ name, output: "messages" }, async ({ messages }: { messages: string[] }) => {
        calls.push(name);
        return later([...messages, `${name} done`]);
      });
    const summarize = node({ name: "summarize", output: "summary" }, ({ messages }: { messages: string[] }) => {
      calls.push("summarize");
      return messages.join(" | ");
    });
    return {
      nodes: [supervisor, routeToAgent, worker("researcher"), worker("coder"), summarize] as AnyNode[],
      build: (nodes: AnyNode[]) => new Graph(nodes, { entrypoint: "supervisor" }),
    };
  };

  it("supervisor researcher supervisor coder supervisor, then the summary once, in all 120 listings", async () => {
    const runs = await everyListing(make, { messages: ["user: plot GDP"] });
    for (const run of runs) {
      expect(run.calls).toBe("supervisor researcher supervisor coder supervisor summarize");
      expect(run.values.summary).toBe("user: plot GDP | researcher done | coder done");
    }
  }, 60_000);
});

describe("a loop with no entrypoint that only a name can start", () => {
  it("picks the node whose name sorts first, warns at build and at run start", async () => {
    // Two symmetric nodes feed each other through gates: nothing in the structure prefers one.
    const ping = node({ name: "ping", output: "a" }, ({ b }: { b: number }) => b + 1);
    const pong = node({ name: "pong", output: "b" }, ({ a }: { a: number }) => a + 1);
    const toPong = route({ name: "toPong", targets: ["pong", END] }, ({ a }: { a: number }) => (a > 3 ? END : "pong"));
    const toPing = route({ name: "toPing", targets: ["ping", END] }, ({ b }: { b: number }) => (b > 3 ? END : "ping"));
    for (const nodes of [
      [ping, pong, toPong, toPing],
      [toPing, toPong, pong, ping],
    ]) {
      const graph = new Graph(nodes);
      expect(graph.analysis.entries.get(graph.analysis.componentOf.get("ping")!)).toEqual(["ping"]);
      expect(graph.warnings).toEqual([
        "The cycle 'ping', 'pong', 'toPing', 'toPong' has no entrypoint, and its structure does not decide which node starts it: 'ping', 'pong' qualify equally. Chose 'ping' (first by name).\n" +
          "  How to fix: set entrypoint to the node that should run first, or make the loop's state explicit with bind() or a default.",
      ]);
      const events: GraphEvent[] = [];
      const runner = new Runner({ eventProcessors: [{ onEvent: (e) => void events.push(e) }] });
      const result = await runner.run(graph, { values: { a: 0, b: 0 } });
      expect(result.values).toEqual({ a: 4, b: 3 });
      expect(events.filter((e) => e.type === "Warning").map((e) => (e as { message: string }).message)).toEqual(
        graph.warnings,
      );
      expect(new Graph(nodes, { entrypoint: "pong" }).warnings).toEqual([]);
    }
  });
});
