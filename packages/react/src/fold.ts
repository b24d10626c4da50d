import type { GraphUIMessage, NodeEndData, RunData, StateData, SuspenseData } from "@graph/ai-sdk";
import type { Graph } from "@graph/core";

/**
 * What one node did in the latest run: `running` until its `data-node-end` arrives.
 *
 * @example
 * ```ts
 * const activity: NodeActivity = { name: "draft", path: "draft", status: "running", runs: 1 };
 * ```
 */
export interface NodeActivity {
  readonly name: string;
  readonly path: string;
  readonly status: "running" | NodeEndData["status"];
  /** How many times it started in the latest run (a loop's node: its iterations so far). */
  readonly runs: number;
  readonly durationMs?: number;
  readonly error?: string;
}

/**
 * The graph's view of a chat, folded from its messages' data parts.
 *
 * @example
 * ```ts
 * const view: GraphView = foldGraphMessages([]);
 * view.activeNodes; // []
 * ```
 */
export interface GraphView<G extends Graph = Graph> {
  /** Every value the runs streamed (`data-state`), latest last: by name, and by path for nested values. */
  readonly state: StateData<G>["values"];
  /** Nodes of the latest run, in the order they started (nested nodes and map items by path). */
  readonly nodes: readonly NodeActivity[];
  /** Paths of the latest run's nodes that are running now. */
  readonly activeNodes: readonly string[];
  /** The pause the latest run ended at, while it waits for an answer. */
  readonly pending: SuspenseData<G> | undefined;
  /** The latest run's `data-run` part (undefined while it runs). */
  readonly run: RunData | undefined;
}

/**
 * Folds chat messages into the graph's view: the state from every `data-state` part, the latest run's node activity,
 * and its pending pause. Pure: `useGraphChat` calls it on each render.
 *
 * @example
 * ```ts
 * const view = foldGraphMessages([
 *   { id: "a1", role: "assistant", parts: [{ type: "data-node-start", data: { name: "draft", path: "draft", nodeType: "function" } }] },
 * ]);
 * view.activeNodes; // ["draft"]
 * ```
 */
export function foldGraphMessages<G extends Graph = Graph>(messages: readonly GraphUIMessage<G>[]): GraphView<G> {
  const state: Record<string, unknown> = {};
  let latest: GraphUIMessage<G> | undefined;
  for (const message of messages) {
    if (message.role === "assistant") latest = message;
    for (const part of message.parts)
      if (part.type === "data-state") Object.assign(state, (part.data as StateData<G>).values);
  }
  const last = messages.at(-1);
  const nodes = new Map<string, NodeActivity>();
  let pending: SuspenseData<G> | undefined;
  let run: RunData | undefined;
  for (const part of latest?.parts ?? []) {
    if (part.type === "data-node-start") {
      const { name, path } = part.data;
      const runs = (nodes.get(path)?.runs ?? 0) + 1;
      nodes.delete(path);
      nodes.set(path, { name, path, status: "running", runs });
    } else if (part.type === "data-node-end") {
      const { name, path, status, durationMs, error } = part.data;
      const runs = nodes.get(path)?.runs ?? 1;
      nodes.set(path, { name, path, status, runs, durationMs, ...(error === undefined ? {} : { error }) });
    } else if (part.type === "data-node-suspense") {
      // A server from before `nodeName` sent only `name`.
      const data = part.data as { readonly nodeName?: string; readonly name?: string };
      pending = { ...data, nodeName: data.nodeName ?? data.name } as SuspenseData<G>;
    } else if (part.type === "data-run") run = part.data;
  }
  // An answer (a user message after the pause) or a run that did not end paused means nothing waits any more.
  if (last !== latest || run?.status !== "paused") pending = undefined;
  const all = [...nodes.values()];
  return {
    state: state as StateData<G>["values"],
    nodes: all,
    activeNodes: all.filter((n) => n.status === "running").map((n) => n.path),
    pending,
    run,
  };
}
