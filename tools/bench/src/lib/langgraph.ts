// The same graphs in LangGraph.js: a StateGraph with Annotation channels, one node per step.
// LangGraph's builder types narrow node names as they are added; graphs built in a loop need a looser view.
import { Annotation, type BaseCheckpointSaver, END, Send, START, StateGraph } from "@langchain/langgraph";
import { AGENT_ITERATIONS, type FnKind, square, sum } from "./graphs.js";

/** What the bench calls on a compiled LangGraph graph. */
export interface LangGraphApp {
  invoke(input: Record<string, unknown>, config?: Record<string, unknown>): Promise<Record<string, unknown>>;
}

interface LooseBuilder {
  addNode(name: string, fn: (state: any) => unknown): LooseBuilder;
  addEdge(from: string, to: string): LooseBuilder;
  addConditionalEdges(from: string, router: (state: any) => unknown, targets?: readonly string[]): LooseBuilder;
  compile(options?: { checkpointer?: BaseCheckpointSaver }): LangGraphApp;
}

const loose = (builder: unknown): LooseBuilder => builder as LooseBuilder;

const ChainState = Annotation.Root({ v: Annotation<number> });

/** `length` nodes, each `{ v: v + 1 }`, START → n0 → … → END. Invoke with `recursionLimit ≥ length + 1`. */
export function langgraphChain(
  length: number,
  checkpointer?: BaseCheckpointSaver,
  kind: FnKind = "async",
): LangGraphApp {
  const builder = loose(new StateGraph(ChainState));
  for (let i = 0; i < length; i++)
    builder.addNode(
      `n${i}`,
      kind === "async"
        ? async (state: { v: number }) => ({ v: state.v + 1 })
        : (state: { v: number }) => ({ v: state.v + 1 }),
    );
  builder.addEdge(START, "n0");
  for (let i = 0; i + 1 < length; i++) builder.addEdge(`n${i}`, `n${i + 1}`);
  builder.addEdge(`n${length - 1}`, END);
  return builder.compile(checkpointer === undefined ? {} : { checkpointer });
}

const AgentState = Annotation.Root({ count: Annotation<number> });

/** increment → conditional edge back to increment until count reaches 20, then END. */
export function langgraphAgentLoop(kind: FnKind = "async"): LangGraphApp {
  const builder = loose(new StateGraph(AgentState));
  builder.addNode(
    "increment",
    kind === "async"
      ? async (state: { count: number }) => ({ count: state.count + 1 })
      : (state: { count: number }) => ({ count: state.count + 1 }),
  );
  builder.addEdge(START, "increment");
  builder.addConditionalEdges(
    "increment",
    (state: { count: number }) => (state.count >= AGENT_ITERATIONS ? END : "increment"),
    ["increment", END],
  );
  return builder.compile();
}

const MapState = Annotation.Root({
  items: Annotation<number[]>,
  results: Annotation<number[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  total: Annotation<number>,
});

/** Fan-out with `Send` to one `work` task per item, then `reduce` sums the collected results. */
export function langgraphMap(): LangGraphApp {
  const builder = loose(new StateGraph(MapState));
  builder.addNode("work", async (task: { x: number }) => ({ results: [square(task)] }));
  builder.addNode("reduce", (state: { results: number[] }) => ({ total: sum({ y: state.results }) }));
  builder.addConditionalEdges(START, (state: { items: number[] }) => state.items.map((x) => new Send("work", { x })));
  builder.addEdge("work", "reduce");
  builder.addEdge("reduce", END);
  return builder.compile();
}
