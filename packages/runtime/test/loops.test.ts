import { MemoryCheckpointer } from "@graph/checkpoint";
import { type AnyNode, END, Graph, GraphConfigError, interrupt, node, route } from "@graph/core";
import { describe, expect, it } from "vitest";
import { type GraphEvent, isInfiniteLoopError, Runner } from "../src/index.js";

/** Stand-in for a model or tool call: real async work that resolves on a later tick. */
const later = <T>(value: T): Promise<T> => new Promise((resolve) => setTimeout(() => resolve(value), 1));

describe("the loop examples of docs/semantics.md", () => {
  it("a value coming back through a gate re-triggers the loop's entry: A B C A B C A B → { x: 2, y: 3, z: 3 }", async () => {
    const calls: string[] = [];
    const A = node({ name: "A", output: "y" }, async ({ x }: { x: number }) => {
      calls.push("A");
      return later(x + 1);
    });
    const B = node({ name: "B", output: "z" }, async ({ y }: { y: number }) => {
      calls.push("B");
      return later(y);
    });
    const check = route({ name: "check", targets: ["C", END] }, ({ z }: { z: number }) => (z >= 3 ? END : "C"));
    const C = node({ name: "C", output: "x" }, async ({ z }: { z: number }) => {
      calls.push("C");
      return later(z);
    });
    const graph = new Graph([A, B, check, C], { entrypoint: "A" });
    const result = await new Runner().run(graph, { values: { x: 0 } });
    expect(result.status).toBe("completed");
    expect(calls.join(" ")).toBe("A B C A B C A B");
    expect(result.values).toEqual({ x: 2, y: 3, z: 3 });
    // Without the entrypoint: A is the only node that can start with the caller's values, and the same run follows.
    calls.length = 0;
    const unnamed = new Graph([C, check, B, A]);
    expect(unnamed.warnings).toEqual([]);
    expect(unnamed.analysis.loopEntries("A")).toEqual(["C"]);
    const again = await new Runner().run(unnamed, { values: { x: 0 } });
    expect(calls.join(" ")).toBe("A B C A B C A B");
    expect(again.values).toEqual({ x: 2, y: 3, z: 3 });
  });

  it("a 5,000-node chain completes under the default maxIterations", async () => {
    const nodes = Array.from({ length: 5000 }, (_, i) =>
      node({ name: `n${i}`, inputs: [`v${i}`], output: `v${i + 1}` }, (v: Record<string, number>) => v[`v${i}`]! + 1),
    );
    const result = await new Runner().run(new Graph(nodes), { values: { v0: 0 } });
    expect(result.status).toBe("completed");
    expect(result.values.v5000).toBe(5000);
  });

  it("a 10,000-node chain of async nodes completes under the default maxIterations (a DAG is not a loop)", async () => {
    const nodes = Array.from({ length: 10_000 }, (_, i) =>
      node(
        { name: `n${i}`, inputs: [`v${i}`], output: `v${i + 1}` },
        async (v: Record<string, number>) => v[`v${i}`]! + 1,
      ),
    );
    const result = await new Runner().run(new Graph(nodes), { values: { v0: 0 } });
    expect(result.status).toBe("completed");
    expect(result.values.v10000).toBe(10_000);
  });

  it("a loop that never ends fails after its node ran exactly maxIterations times, with the exact message", async () => {
    let runs = 0;
    const counter = node({ name: "counter", output: "count" }, async ({ count }: { count: number }) => {
      runs++;
      return later(count + 1);
    });
    const always = route({ name: "always", targets: ["counter", END] }, ({ count }: { count: number }) =>
      count < 0 ? END : "counter",
    );
    const error = await new Runner().run(new Graph([counter, always]), { values: { count: 0 } }).catch((e) => e);
    expect(isInfiniteLoopError(error)).toBe(true);
    expect(runs).toBe(1000);
    expect(error.nodeName).toBe("counter");
    expect(error.nodes).toEqual(["counter", "always"]);
    expect(error.message).toBe(
      "Node 'counter' would run more than 1000 times in one run (maxIterations: 1000): the loop never settled. " +
        "Still cycling: counter, always. Make a gate of the loop return END (or route out of it), or raise maxIterations.",
    );
  });

  it("maxIterations: 5 lets a body run 5 times, and stops one needing 6 with the body run 5 times", async () => {
    const make = (need: number) => {
      let runs = 0;
      const body = node({ name: "body", output: "n" }, ({ n }: { n: number }) => {
        runs++;
        return n + 1;
      });
      const more = route({ name: "more", targets: ["body", END] }, ({ n }: { n: number }) =>
        n >= need ? END : "body",
      );
      return { graph: new Graph([body, more]), runs: () => runs };
    };
    const five = make(5);
    const ok = await new Runner().run(five.graph, { values: { n: 0 }, maxIterations: 5 });
    expect(ok.values.n).toBe(5);
    expect(five.runs()).toBe(5);
    const six = make(6);
    const error = await new Runner().run(six.graph, { values: { n: 0 }, maxIterations: 5 }).catch((e) => e);
    expect(isInfiniteLoopError(error)).toBe(true);
    expect(six.runs()).toBe(5);
  });
});

/** Self-RAG: retrieve → grade → decide(transformQuery | generate); the rewritten question flows back to retrieve. */
function selfRag(relay: boolean, entrypoint: string | undefined = "retrieve") {
  const calls: string[] = [];
  const track = (name: string) => calls.push(name);
  const retrieve = node({ name: "retrieve", output: "documents" }, async ({ question }: { question: string }) => {
    track("retrieve");
    return later(question.endsWith("+") ? [`fact about ${question}`, "noise"] : ["noise"]);
  });
  const gradeDocuments = node(
    { name: "gradeDocuments", output: "relevant" },
    async ({ question, documents }: { question: string; documents: string[] }) => {
      track("gradeDocuments");
      return later(documents.filter((d) => d.includes(question)));
    },
  );
  const decideToGenerate = route(
    { name: "decideToGenerate", targets: ["transformQuery", "generate"] },
    ({ relevant }: { relevant: string[] }) => (relevant.length === 0 ? "transformQuery" : "generate"),
  );
  const transformQuery = node(
    { name: "transformQuery", output: "question" },
    async ({ question }: { question: string }) => {
      track("transformQuery");
      return later(`${question}+`);
    },
  );
  const generate = node(
    { name: "generate", output: "generation" },
    async ({ question, relevant }: { question: string; relevant: string[] }) => {
      track("generate");
      return later(`answer to ${question} from ${relevant.length} doc(s)`);
    },
  );
  const gradeGeneration = route(
    { name: "gradeGenerationVDocumentsAndQuestion", targets: [END, "generate", "transformQuery"] },
    ({ generation }: { generation: string }) => (generation.includes("1 doc") ? END : "transformQuery"),
  );
  const relayGate = route({ name: "retrieveAgain", targets: ["retrieve"] }, ({ question }: { question: string }) => {
    track("retrieveAgain");
    return question.length > 0 ? "retrieve" : undefined;
  });
  const nodes: AnyNode[] = [retrieve, gradeDocuments, decideToGenerate, transformQuery, generate, gradeGeneration];
  if (relay) nodes.push(relayGate);
  return { graph: new Graph(nodes, entrypoint === undefined ? {} : { entrypoint }), calls };
}

describe("Self-RAG (a gated loop whose gate does not route straight to the entry)", () => {
  it("iterates: the rewritten question re-runs retrieve, and the grader waits for the new documents", async () => {
    const { graph, calls } = selfRag(false);
    const result = await new Runner().run(graph, { values: { question: "q" } });
    expect(result.status).toBe("completed");
    expect(calls).toEqual(["retrieve", "gradeDocuments", "transformQuery", "retrieve", "gradeDocuments", "generate"]);
    expect(result.values.generation).toBe("answer to q+ from 1 doc(s)");
  });

  it("without its entrypoint retrieve starts it, and the run is the same (with and without the relay gate)", async () => {
    for (const relay of [false, true]) {
      const named = selfRag(relay);
      const { graph, calls } = selfRag(relay, undefined);
      expect(graph.warnings).toEqual([]);
      expect(graph.analysis.loopEntries("retrieve")).toEqual(["retrieve"]);
      const result = await new Runner().run(graph, { values: { question: "q" } });
      await new Runner().run(named.graph, { values: { question: "q" } });
      expect(calls).toEqual(named.calls);
      expect(calls).toEqual(
        relay
          ? ["retrieve", "gradeDocuments", "transformQuery", "retrieveAgain", "retrieve", "gradeDocuments", "generate"]
          : ["retrieve", "gradeDocuments", "transformQuery", "retrieve", "gradeDocuments", "generate"],
      );
      expect(result.values.generation).toBe("answer to q+ from 1 doc(s)");
    }
  });

  it("with a relay gate (retrieveAgain(question) → retrieve) it iterates too, and ends", async () => {
    const { graph, calls } = selfRag(true);
    const result = await new Runner().run(graph, { values: { question: "q" } });
    expect(result.status).toBe("completed");
    expect(calls).toEqual([
      "retrieve",
      "gradeDocuments",
      "transformQuery",
      "retrieveAgain",
      "retrieve",
      "gradeDocuments",
      "generate",
    ]);
    expect(result.values.generation).toBe("answer to q+ from 1 doc(s)");
  });
});

describe("review-tool-calls (a human approves each tool call)", () => {
  type Msg = { role: string; content: string; tool?: string };
  function reviewToolCalls(entrypoint: string | undefined = "callLLM") {
    const toolRuns: string[] = [];
    let llmCalls = 0;
    const callLLM = node({ name: "callLLM", output: "aiMessage" }, async ({ messages }: { messages: Msg[] }) => {
      llmCalls++;
      const toolResults = messages.filter((m) => m.role === "tool").length;
      return later<Msg>(
        toolResults < 2
          ? { role: "ai", content: "", tool: `weather#${toolResults + 1}` }
          : { role: "ai", content: "It is sunny." },
      );
    });
    const routeAfterLLM = route(
      { name: "routeAfterLLM", targets: ["prepareReview", END] },
      ({ aiMessage }: { aiMessage: Msg }) => (aiMessage.tool === undefined ? END : "prepareReview"),
    );
    const prepareReview = node(
      { name: "prepareReview", output: "reviewRequest" },
      ({ aiMessage }: { aiMessage: Msg }) => ({
        question: `Run ${aiMessage.tool}?`,
      }),
    );
    const humanReview = interrupt({ name: "humanReview", input: "reviewRequest", response: "review" });
    const applyReview = node(
      { name: "applyReview", output: "messages" },
      async ({ messages, aiMessage, review }: { messages: Msg[]; aiMessage: Msg; review: { approved: boolean } }) => {
        if (!review.approved) return [...messages, aiMessage, { role: "tool", content: "rejected" }];
        toolRuns.push(aiMessage.tool!);
        return later([...messages, aiMessage, { role: "tool", content: `ran ${aiMessage.tool}` }]);
      },
    );
    const graph = new Graph(
      [callLLM, routeAfterLLM, prepareReview, humanReview, applyReview],
      entrypoint === undefined ? {} : { entrypoint },
    );
    return { graph, toolRuns, llmCalls: () => llmCalls };
  }

  for (const entrypoint of ["callLLM", undefined]) {
    it(`pauses for each tool call, and after the final answer the END path ends the branch (no stale approval)${entrypoint === undefined ? " — without its entrypoint (messages is an accumulator: callLLM starts it)" : ""}`, async () => {
      const { graph, toolRuns, llmCalls } = reviewToolCalls(entrypoint);
      expect(graph.warnings).toEqual([]);
      expect(graph.analysis.loopEntries("callLLM")).toEqual(["callLLM"]);
      const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
      const workflowId = "review-1";
      let result = await runner.run(graph, {
        workflowId,
        values: { messages: [{ role: "user", content: "weather?" }] },
      });
      expect(result.status).toBe("paused");
      expect(result.pause?.value).toEqual({ question: "Run weather#1?" });
      result = await runner.run(graph, { workflowId, values: { review: { approved: true } } });
      expect(result.status).toBe("paused");
      expect(result.pause?.value).toEqual({ question: "Run weather#2?" });
      result = await runner.run(graph, { workflowId, values: { review: { approved: true } } });
      expect(result.status).toBe("completed");
      expect(toolRuns).toEqual(["weather#1", "weather#2"]);
      expect(llmCalls()).toBe(3);
      expect(result.values.aiMessage).toEqual({ role: "ai", content: "It is sunny." });
      expect((result.values.messages as Msg[]).map((m) => m.content)).toEqual([
        "weather?",
        "",
        "ran weather#1",
        "",
        "ran weather#2",
      ]);
      await runner.close();
    });
  }
});

describe("the agent supervisor (exclusive writers inside a loop)", () => {
  function supervisorNodes(calls: string[]) {
    const supervisor = node({ name: "supervisor", output: "next" }, async ({ messages }: { messages: string[] }) => {
      calls.push("supervisor");
      return later(messages.length === 1 ? "researcher" : messages.length === 2 ? "chart_generator" : "FINISH");
    });
    const routeToWorker = route(
      { name: "routeToWorker", targets: ["researcher", "chart_generator", END] },
      ({ next }: { next: string }) => (next === "FINISH" ? END : next),
    );
    const researcher = node(
      { name: "researcher", output: "messages" },
      async ({ messages }: { messages: string[] }) => {
        calls.push("researcher");
        return later([...messages, "research: GDP figures"]);
      },
    );
    const chartGenerator = node(
      { name: "chart_generator", output: "messages" },
      async ({ messages }: { messages: string[] }) => {
        calls.push("chart_generator");
        return later([...messages, "chart: line plot"]);
      },
    );
    return [supervisor, routeToWorker, researcher, chartGenerator];
  }

  it("with an entrypoint it builds and runs supervisor, researcher, supervisor, chart_generator, supervisor", async () => {
    const calls: string[] = [];
    const graph = new Graph(supervisorNodes(calls), { entrypoint: "supervisor" });
    const events: GraphEvent[] = [];
    const runner = new Runner({ eventProcessors: [{ onEvent: (e) => void events.push(e) }] });
    const result = await runner.run(graph, { values: { messages: ["user: chart the GDP"] } });
    expect(result.status).toBe("completed");
    expect(calls).toEqual(["supervisor", "researcher", "supervisor", "chart_generator", "supervisor"]);
    expect(result.values.messages).toEqual(["user: chart the GDP", "research: GDP figures", "chart: line plot"]);
    // RouteDecision.decision is the chosen target (or END) for a single-choice route, not a list.
    const decisions = events.flatMap((e) => (e.type === "RouteDecision" ? [e.decision] : []));
    expect(decisions).toEqual(["researcher", "chart_generator", END]);
  });

  it("without an entrypoint it is rejected, with the reason and the fix", () => {
    let error: unknown;
    try {
      new Graph(supervisorNodes([]));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GraphConfigError);
    expect(error).toMatchObject({ _tag: "GraphConfigError", where: "chart_generator" });
    expect((error as Error).message).toContain(
      "'researcher' and 'chart_generator' are in exclusive branches of gate 'routeToWorker', but that gate is in a loop with no entrypoint, so both may run before it first decides",
    );
    expect((error as Error).message).toContain("set entrypoint");
  });
});

describe("a feedback pair inside a gated loop", () => {
  it("stays a feedback pair when no gate lies between its nodes (no ping-pong)", async () => {
    const calls: string[] = [];
    const nextQuestion = node({ name: "nextQuestion", output: "question" }, async ({ round }: { round: number }) => {
      calls.push("nextQuestion");
      return later(`q${round}`);
    });
    const answer = node(
      { name: "answer", output: "reply" },
      async ({ question, memory }: { question: string; memory: string[] }) => {
        calls.push("answer");
        return later(`${question}/${memory.length}`);
      },
    );
    const remember = node(
      { name: "remember", output: "memory" },
      ({ memory, reply }: { memory: string[]; reply: string }) => {
        calls.push("remember");
        return [...memory, reply];
      },
    );
    const countRounds = node({ name: "countRounds", output: "round" }, ({ memory }: { memory: string[] }) => {
      calls.push("countRounds");
      return memory.length;
    });
    const more = route({ name: "more", targets: ["nextQuestion", END] }, ({ round }: { round: number }) =>
      round >= 2 ? END : "nextQuestion",
    );
    const graph = new Graph([nextQuestion, answer, remember, countRounds, more], { entrypoint: "nextQuestion" }).bind({
      memory: [],
    });
    const result = await new Runner().run(graph, { values: { round: 0 } });
    expect(result.status).toBe("completed");
    expect(calls).toEqual([
      "nextQuestion",
      "answer",
      "remember",
      "countRounds",
      "nextQuestion",
      "answer",
      "remember",
      "countRounds",
    ]);
    expect(result.values.memory).toEqual(["q0/0", "q1/1"]);
  });

  it("without its entrypoint countRounds starts it from the bound memory (round is the loop's own value, not the caller's)", async () => {
    const calls: string[] = [];
    const nextQuestion = node({ name: "nextQuestion", output: "question" }, async ({ round }: { round: number }) => {
      calls.push("nextQuestion");
      return later(`q${round}`);
    });
    const answer = node(
      { name: "answer", output: "reply" },
      async ({ question, memory }: { question: string; memory: string[] }) => {
        calls.push("answer");
        return later(`${question}/${memory.length}`);
      },
    );
    const remember = node(
      { name: "remember", output: "memory" },
      ({ memory, reply }: { memory: string[]; reply: string }) => {
        calls.push("remember");
        return [...memory, reply];
      },
    );
    const countRounds = node({ name: "countRounds", output: "round" }, ({ memory }: { memory: string[] }) => {
      calls.push("countRounds");
      return memory.length;
    });
    const more = route({ name: "more", targets: ["nextQuestion", END] }, ({ round }: { round: number }) =>
      round >= 2 ? END : "nextQuestion",
    );
    const graph = new Graph([more, countRounds, remember, answer, nextQuestion]).bind({ memory: [] });
    expect(graph.analysis.loopEntries("more")).toEqual(["countRounds"]);
    expect(graph.warnings).toEqual([]);
    // countRounds is the only node whose loop input (memory) has a value before the first turn; given `round` by the
    // caller it would be skipped (a supplied output skips its producer), so the loop computes it.
    const result = await new Runner().run(graph, {});
    expect(calls).toEqual([
      "countRounds",
      "nextQuestion",
      "answer",
      "remember",
      "countRounds",
      "nextQuestion",
      "answer",
      "remember",
      "countRounds",
    ]);
    expect(result.values.memory).toEqual(["q0/0", "q1/1"]);
    expect(result.values.round).toBe(2);
  });
});
