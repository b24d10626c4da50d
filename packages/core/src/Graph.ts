import { DirectedGraph } from "graphology";
import { hasCycle } from "graphology-dag";
import { GRAPH_BRAND, isNode, NODE_PROTOCOL } from "./brands.js";
import { END } from "./END.js";
import { GraphConfigError } from "./errors.js";
import { checkMappable, type GraphNode, makeGraphNode } from "./GraphNode.js";
import type { GateNode, Target } from "./gates.js";
import { Analysis, type EdgeSpec } from "./internal/analysis.js";
import { checkName } from "./internal/BaseNode.js";
import { describeValue, isPlainRecord, showName } from "./internal/describe.js";
import { expandFrames } from "./internal/frames.js";
import { sha256, stableStringify } from "./internal/hash.js";
import { renderMermaid } from "./internal/mermaid.js";
import { checkBooleanOption, checkEdgeShapes, notANode } from "./internal/optionChecks.js";
import { checkOwnCollectedInput, privateStateOf } from "./internal/privateState.js";
import { didYouMean, quoteList } from "./internal/suggest.js";
import { deadlockError, validateGraph } from "./internal/validate.js";
import type { InterruptNode } from "./interrupt.js";
import type { FunctionNode } from "./node.js";
import type { BindValues, MetaAfterBind } from "./types/bind.js";
import type { CheckedNodes, GraphMeta, MergedGraph } from "./types/merge.js";
import type { DefaultSeededOf, NodeInputsOf, PrivateStateOf } from "./types/nested.js";
import type { IsAny, Simplify } from "./types/util.js";

/**
 * Any node a graph can hold.
 *
 * @example
 * ```ts
 * const nodes: AnyNode[] = [embed, decide, approval, rag.asNode()];
 * ```
 */
export type AnyNode = FunctionNode<any> | GateNode<any> | InterruptNode<any> | GraphNode<any>;

/**
 * An explicit edge: `[from, to]` carries every value `from` outputs and `to` takes (or only orders them when they
 * share none); `[from, to, ["x"]]` carries the named values.
 *
 * @example
 * ```ts
 * const edges: EdgeDefinition[] = [["load", "process", ["config"]], ["warmup", "process"]];
 * ```
 */
export type EdgeDefinition = readonly [from: string, to: string, valueNames?: readonly string[]];

/**
 * Options of the {@link Graph} constructor.
 *
 * @example
 * ```ts
 * const options: GraphOptions = { name: "rag", strictTypes: false, completeOnStop: false };
 * ```
 */
export interface GraphOptions {
  /** Used by `asNode()` and in result paths. */
  readonly name?: string;
  /** Require zod schemas on both ends of every data edge and check they are compatible. */
  readonly strictTypes?: boolean;
  /** On a stop: keep streaming nodes' partial output and let remaining nodes run. */
  readonly completeOnStop?: boolean;
  /** Node(s) where a cycle starts. It never excludes any node from the run. */
  readonly entrypoint?: string | readonly string[];
  /** Explicit edges; replaces name inference for data edges. */
  readonly edges?: readonly EdgeDefinition[];
}

/**
 * What a graph needs from the caller. Sets keep node-list order.
 *
 * @example
 * ```ts
 * const spec: InputSpec = graph.inputs;
 * spec.required; // Set { "query" }
 * ```
 */
export interface InputSpec {
  /** No incoming edge, not bound, no default. */
  readonly required: ReadonlySet<string>;
  /** Bound, or every consumer has a default. */
  readonly optional: ReadonlySet<string>;
  /** First values of cycles (`counter(count) -> count` ⇒ `count`) with no bound value or default. */
  readonly seeds: ReadonlySet<string>;
  readonly bound: Readonly<Record<string, unknown>>;
  /** required ∪ optional ∪ seeds. */
  readonly all: ReadonlySet<string>;
}

/**
 * Attributes of a node in {@link Graph.structure}.
 *
 * @example
 * ```ts
 * graph.structure.getNodeAttributes("decide").isGate; // true
 * ```
 */
export interface StructureNodeAttributes {
  readonly node: AnyNode;
  readonly nodeType: AnyNode["nodeType"];
  readonly isGate: boolean;
}

/**
 * Attributes of an edge in {@link Graph.structure}.
 *
 * @example
 * ```ts
 * graph.structure.forEachEdge((e, attrs) => console.log(attrs.edgeType, attrs.valueNames));
 * ```
 */
export interface StructureEdgeAttributes {
  readonly edgeType: "data" | "control" | "ordering";
  readonly valueNames: readonly string[];
  /**
   * For control edges: the target's label (`true`/`false` for ifElse, the target name for route). For a data edge
   * that carries a timed pause's timed-out flag: `"timeout"` (the path taken when nobody answered in time).
   */
  readonly condition: string | undefined;
}

interface GraphState {
  readonly bound: Readonly<Record<string, unknown>>;
}

type NewGraph<M extends { readonly in: unknown; readonly out: unknown; readonly meta: GraphMeta }> = Graph<
  M["in"],
  M["out"],
  M["meta"]
>;
/** The configured entrypoints' literal names (none when a name is not a literal). */
type EntryNames<E> = (E extends readonly (infer N)[] ? N : E) extends infer N ? (string extends N ? never : N) : never;

/**
 * A workflow graph: plain nodes wired by name. Pure structure — no execution (see `@graph/runtime`). All methods
 * are immutable and return new graphs; every build-time problem throws {@link GraphConfigError}.
 *
 * @example
 * ```ts
 * import { Graph, node } from "@graph/core";
 * const embed = node({ output: "embedding" }, ({ text }: { text: string }) => [text.length]);
 * const score = node({ output: "score" }, ({ embedding }: { embedding: number[] }) => embedding[0]);
 * const graph = new Graph([embed, score], { name: "scoring" });
 * graph.inputs.required; // Set { "text" }
 * graph.toMermaid();
 * ```
 */
class GraphBase {
  /** Phantom (type-level only), narrowed by {@link Graph}. */
  declare readonly "~types": { readonly in: any; readonly out: any; readonly meta: any };
  /** The `@graph/graph` brand (see `isGraph`): the node protocol this graph was built with. */
  readonly [GRAPH_BRAND]: number = NODE_PROTOCOL;
  /** Node name → node, in node-list order. */
  readonly nodes: ReadonlyMap<string, AnyNode>;
  readonly name: string | undefined;
  readonly strictTypes: boolean;
  readonly completeOnStop: boolean;
  /** Configured entrypoints. */
  readonly entrypoint: readonly string[];
  /** The graphology view: node attrs `node`, `nodeType`, `isGate`; edge attrs `edgeType`, `valueNames`, `condition`. */
  readonly structure: DirectedGraph<StructureNodeAttributes, StructureEdgeAttributes>;
  readonly inputs: InputSpec;
  /** All outputs, node-list order. */
  readonly outputs: readonly string[];
  /** Outputs no node of this graph consumes. */
  readonly leafOutputs: readonly string[];
  /** @internal The scheduler's view of the graph. */
  readonly analysis: Analysis;
  /**
   * Build warnings: loops whose starting node only a tie-break by name decided (no `entrypoint`, and neither
   * `bind`, defaults nor gates single one out). Each names the loop, the candidates and the choice; the runtime
   * reports them as `Warning` events when a run starts.
   */
  readonly warnings: readonly string[];

  readonly #options: GraphOptions;
  readonly #nodeList: readonly AnyNode[];
  readonly #edges: readonly EdgeSpec[];
  #hash: string | undefined;
  #interruptPaths: readonly string[] | undefined;
  #privateState: readonly string[] | undefined;

  constructor(nodes: readonly AnyNode[], options: GraphOptions = {}, state: GraphState = { bound: {} }) {
    if (!Array.isArray(nodes))
      throw new GraphConfigError(
        `new Graph() expects an array of nodes as its first argument, got ${describeValue(nodes)}.\n  How to fix: new Graph([embed, retrieve], { name: "rag" }).`,
      );
    if (!isPlainRecord(options)) {
      throw new GraphConfigError(
        `new Graph() expects an options object as its second argument, got ${describeValue(options)}.\n  How to fix: new Graph(nodes, { name: "rag" }), or leave the options out.`,
      );
    }
    // A sparse array's holes are not nodes either: index every slot, not just the present ones.
    for (let i = 0; i < nodes.length; i++) if (!isNode(nodes[i])) throw notANode(i, nodes[i]);
    if (options.name !== undefined) checkName("graph", options.name, (shown) => `graph ${shown}`);
    checkBooleanOption("new Graph()", "strictTypes", options.strictTypes);
    checkBooleanOption("new Graph()", "completeOnStop", options.completeOnStop);
    // Frames pipelines first: everything below sees each as one node, named like its frames node.
    nodes = expandFrames(
      nodes,
      options.name === undefined ? "this graph" : `graph '${options.name}'`,
      (region) => new GraphBase(region, options.completeOnStop === true ? { completeOnStop: true } : {}),
    );
    this.#options = options;
    this.#nodeList = nodes;
    this.name = options.name;
    this.strictTypes = options.strictTypes ?? false;
    this.completeOnStop = options.completeOnStop ?? false;
    const where = this.name === undefined ? "this graph" : `graph '${this.name}'`;

    const byName = new Map<string, AnyNode>();
    for (const n of nodes) {
      if (byName.has(n.name)) {
        throw new GraphConfigError(
          `Duplicate node name '${n.name}' in ${where}.\n  How to fix: give one of them another name with .withName("…").`,
          { where: n.name },
        );
      }
      byName.set(n.name, n);
    }
    this.nodes = byName;

    if (
      options.entrypoint !== undefined &&
      typeof options.entrypoint !== "string" &&
      !(Array.isArray(options.entrypoint) && options.entrypoint.every((e) => typeof e === "string"))
    )
      throw new GraphConfigError(
        `Graph option 'entrypoint' must be a node name or an array of node names in ${where}, got ${describeValue(options.entrypoint)}.`,
      );
    if (options.edges !== undefined && !Array.isArray(options.edges))
      throw new GraphConfigError(
        `Graph option 'edges' must be an array of [from, to] pairs in ${where}, got ${describeValue(options.edges)}.`,
      );
    if (options.edges !== undefined) checkEdgeShapes(options.edges, where);
    const entry =
      options.entrypoint === undefined
        ? []
        : typeof options.entrypoint === "string"
          ? [options.entrypoint]
          : [...options.entrypoint];
    for (const e of entry) {
      if (!byName.has(e)) {
        throw new GraphConfigError(
          `Unknown entrypoint '${e}' in ${where}.${didYouMean(e, byName.keys())}\n  → Nodes: ${quoteList(byName.keys())}`,
          {
            where: e,
          },
        );
      }
    }
    this.entrypoint = entry;

    this.#edges = buildEdges(nodes, byName, options.edges, where);
    for (const n of nodes) if (n.kind === "graph") checkOwnCollectedInput(n, this.#edges);
    this.structure = new DirectedGraph<StructureNodeAttributes, StructureEdgeAttributes>({ allowSelfLoops: true });
    for (const n of nodes) this.structure.addNode(n.name, { node: n, nodeType: n.nodeType, isGate: n.isGate });
    for (const e of this.#edges) {
      const condition =
        e.kind === "control" ? controlCondition(byName.get(e.from)!, e.to) : timeoutCondition(byName.get(e.from)!, e);
      if (this.structure.hasEdge(e.from, e.to)) {
        // One structure edge per pair (explicit edges may repeat a pair): a control edge wins over an ordering edge
        // from the same gate; data edges merge their value names.
        const existing = this.structure.getEdgeAttributes(e.from, e.to);
        if (e.kind === "control")
          this.structure.replaceEdgeAttributes(e.from, e.to, { edgeType: "control", valueNames: [], condition });
        else if (e.kind === "data" && existing.edgeType !== "control") {
          const valueNames = [...new Set([...existing.valueNames, ...e.valueNames])];
          const timeout = existing.condition ?? condition;
          this.structure.replaceEdgeAttributes(e.from, e.to, { edgeType: "data", valueNames, condition: timeout });
        }
        continue;
      }
      this.structure.addEdge(e.from, e.to, { edgeType: e.kind, valueNames: e.valueNames, condition });
    }

    const entrySet = new Set(entry);
    // Bound values take part in choosing a loop's entry and its loop-carried values (docs/semantics.md, "Loops").
    this.analysis = new Analysis(nodes, this.#edges, entrySet, new Set(Object.keys(state.bound)), (cycle) => {
      // With no possible entry the cycle can never start; say so now (breaking the cycle needs an entry).
      throw deadlockError(
        where,
        nodes.map((n) => n.name).filter((n) => cycle.includes(n)),
        nodes.filter((n): n is GateNode => n.kind === "gate" && cycle.includes(n.name)),
      );
    });
    this.warnings = Object.freeze([...this.analysis.warnings]);
    for (const e of entry) {
      if (!this.analysis.cyclic.has(this.analysis.componentOf.get(e)!)) {
        throw new GraphConfigError(
          `entrypoint '${e}' is not part of a cycle in ${where}.\n` +
            `  → An entrypoint only picks which node of a cycle runs first; outside a cycle it has no effect (nodes run when their inputs are ready).\n` +
            `  How to fix: remove '${e}' from entrypoint, or name a node of a cycle${cycleList(this.analysis)}.`,
          { where: e },
        );
      }
    }

    for (const n of nodes)
      if (n.kind === "graph" && n.mapOverConfig) checkMappable(n.name, n.graph, n.mapOverConfig.params);
    validateGraph(this, nodes, where);

    const bound = { ...state.bound };
    this.inputs = computeInputSpec(nodes, this.analysis, bound);
    // A set keeps first-seen order and makes this linear (an array lookup per output is quadratic on big graphs).
    const outputs = new Set<string>();
    for (const n of nodes) for (const o of n.outputs) outputs.add(o);
    this.outputs = Object.freeze([...outputs]);
    // A leaf output is one no node receives through an edge (with explicit edges, a same-named input may be unwired).
    const wiredValues = new Set<string>();
    for (const e of this.#edges) if (e.kind === "data") for (const v of e.valueNames) wiredValues.add(v);
    this.leafOutputs = Object.freeze(this.outputs.filter((o) => !wiredValues.has(o)));
  }

  /**
   * This graph's own loop state: values it both reads and writes and seeds itself (a bound value, or a default),
   * such as an agent's `log`. Nested in another graph, each call starts from that seed (see `GraphNode.privateState`).
   */
  get privateState(): readonly string[] {
    this.#privateState ??= Object.freeze(privateStateOf(this));
    return this.#privateState;
  }

  /** True if this level (not nested graphs) has a cycle. */
  get hasCycles(): boolean {
    return hasCycle(this.structure);
  }
  get hasGates(): boolean {
    return this.#nodeList.some((n) => n.isGate);
  }
  /** True if this graph or a nested one has interrupt nodes. */
  get hasInterrupts(): boolean {
    return this.interruptPaths.length > 0;
  }
  /** True if any node (here or nested) is async. */
  get hasAsyncNodes(): boolean {
    return this.#nodeList.some(
      (n) =>
        (n.kind === "function" && n.isAsync) ||
        (n.kind === "graph" && (n.framesConfig !== undefined || n.graph.hasAsyncNodes)),
    );
  }
  /** Interrupt nodes of this level. */
  get interruptNodes(): readonly InterruptNode[] {
    return this.#nodeList.filter((n): n is InterruptNode => n.kind === "interrupt");
  }
  /** Paths of every interrupt, nested ones included (`"review/approval"`). */
  get interruptPaths(): readonly string[] {
    this.#interruptPaths ??= this.#nodeList.flatMap((n) =>
      n.kind === "interrupt" ? [n.name] : n.kind === "graph" ? n.graph.interruptPaths.map((p) => `${n.name}/${p}`) : [],
    );
    return this.#interruptPaths;
  }
  /** The explicit or inferred edges. */
  get edges(): readonly EdgeSpec[] {
    return this.#edges;
  }

  /** sha256 of every node's definition hash, the wiring and the options (bound values excluded: they are data). */
  get definitionHash(): string {
    this.#hash ??= sha256(
      stableStringify({
        name: this.name,
        nodes: this.#nodeList.map((n) => n.definitionHash),
        edges: this.#options.edges ?? null,
        entrypoint: this.entrypoint,
        strictTypes: this.strictTypes,
        completeOnStop: this.completeOnStop,
      }),
    );
    return this.#hash;
  }

  /**
   * A new graph with these input values bound (merged over earlier binds). Binding a value an edge produces, or
   * a name that is not an input, is a {@link GraphConfigError}.
   */
  bind(values: Readonly<Record<string, unknown>>): Graph {
    if (!isPlainRecord(values)) {
      throw new GraphConfigError(
        `bind() expects an object of input values ({ name: value }), got ${describeValue(values)}.\n  → Valid inputs: ${quoteList(this.inputs.all)}`,
      );
    }
    const valid = this.inputs.all;
    for (const k of Object.keys(values)) {
      // Graph inputs (seeds included) can be bound; a value only reachable through an edge cannot.
      if (valid.has(k)) continue;
      const producers = this.analysis.producers.get(k);
      if (producers !== undefined && producers.length > 0) {
        throw new GraphConfigError(
          `Cannot bind '${k}': it is produced by node '${producers[0]}'.\n  → Edges define the data flow; a bound value would silently override it.\n  How to fix: pass '${k}' in run values to skip '${producers[0]}', or remove that node.`,
          { where: k },
        );
      }
      throw new GraphConfigError(
        `Cannot bind '${k}': it is not an input of this graph.${didYouMean(k, valid)}\n  → Valid inputs: ${quoteList(valid)}`,
        {
          where: k,
        },
      );
    }
    return new GraphBase(this.#nodeList, this.#options, { bound: { ...this.inputs.bound, ...values } }) as Graph;
  }

  /** A new graph without the given bindings (all of them when no key is given). */
  unbind(...keys: string[]): Graph {
    const valid = this.inputs.all;
    for (const k of keys as unknown[]) {
      if (typeof k !== "string") {
        throw new GraphConfigError(
          `unbind() takes input names as strings, got ${describeValue(k)}.\n  → Bound inputs: ${quoteList(Object.keys(this.inputs.bound))}\n  How to fix: graph.unbind("model"), or graph.unbind() to remove every binding.`,
        );
      }
      // Unbinding an input that is not bound is harmless; a name that is no input at all is a typo.
      if (!valid.has(k)) {
        throw new GraphConfigError(
          `Cannot unbind ${showName(k)}: it is not an input of this graph.${didYouMean(k, valid)}\n  → Bound inputs: ${quoteList(Object.keys(this.inputs.bound))}`,
          { where: k },
        );
      }
    }
    const bound = { ...this.inputs.bound };
    if (keys.length === 0) for (const k of Object.keys(bound)) delete bound[k];
    for (const k of keys) delete bound[k];
    return new GraphBase(this.#nodeList, this.#options, { bound }) as Graph;
  }

  /** Wraps this graph as a node of another graph. The name comes from `options.name`, else the graph's name. */
  asNode(options: { readonly name?: string; readonly completeOnStop?: boolean } = {}): GraphNode<any> {
    if (!isPlainRecord(options)) {
      throw new GraphConfigError(
        `asNode() expects an options object ({ name?, completeOnStop? }), got ${describeValue(options)}.\n  How to fix: graph.asNode({ name: "rag" }), or graph.asNode() to use the graph's name.`,
      );
    }
    checkBooleanOption("asNode()", "completeOnStop", options.completeOnStop);
    const name = options.name ?? this.name;
    if (name === undefined) {
      throw new GraphConfigError(
        'GraphNode requires a name: this graph has none.\n  How to fix: new Graph(nodes, { name: "rag" }) or graph.asNode({ name: "rag" }).',
      );
    }
    return makeGraphNode(this, name, options.completeOnStop);
  }

  /** A Mermaid flowchart (paste into Markdown): gates as diamonds, END shown, nested graphs as subgraphs. */
  toMermaid(): string {
    return renderMermaid(this);
  }
}

// The class keeps its public name at run time (stack traces, `graph.constructor.name`).
Object.defineProperty(GraphBase, "name", { value: "Graph" });

/**
 * A graph as the type checker sees it: `In` what a caller passes (see `InputsOf`), `Out` what it produces (see
 * `OutputsOf`), `Meta` its name, node names, pauses and loop-fed values. `new Graph([...])` infers all three from
 * the nodes; write `Graph<In, Out>` yourself to state them (the escape hatch for nodes the checker can't read).
 *
 * @example
 * ```ts
 * const rag: Graph<{ query: string }, { answer: string }> = new Graph([answer], { name: "rag" });
 * ```
 */
export interface Graph<In = any, Out = any, Meta extends GraphMeta = any> extends GraphBase {
  /** Phantom (type-level only). */
  readonly "~types": { readonly in: In; readonly out: Out; readonly meta: Meta };
  /**
   * A new graph with these input values bound (merged over earlier binds): their keys become optional. Binding a
   * value an edge produces, or a name that is not an input, is a {@link GraphConfigError}.
   */
  bind<V extends BindValues<In, Meta["fed"], Out, Meta["name"], V>>(
    values: V,
  ): Graph<Simplify<Omit<In, keyof V> & Partial<Pick<In, keyof V & keyof In>>>, Out, MetaAfterBind<Meta, keyof V>>;
  /** A new graph without the given bindings (all of them when no key is given). */
  unbind(...keys: (keyof In & string)[]): Graph<In, Out, Meta>;
  /** Wraps this graph as a node of another graph. The name comes from `options.name`, else the graph's name. */
  asNode<const N extends string = Meta["name"]>(options?: {
    readonly name?: N;
    readonly completeOnStop?: boolean;
  }): NoInfer<
    GraphNode<N, NodeInputsOf<In, Out>, Out, Out, Meta["pauses"], PrivateStateOf<In, Out> & DefaultSeededOf<Meta>>
  >;
}

/**
 * The constructor of {@link Graph}: infers the graph's types from the node list, and fails to compile when a
 * producer's type is not assignable to a consumer's (the message names the value) or a gate targets a name that
 * is not a node of the graph.
 */
export interface GraphConstructor {
  new <
    const Ns extends readonly AnyNode[],
    const Name extends string = string,
    const Entry extends string | readonly string[] = never,
    const Edges extends readonly EdgeDefinition[] | undefined = undefined,
  >(
    nodes: CheckedNodes<Ns>,
    options?: GraphOptions & { readonly name?: Name; readonly entrypoint?: Entry; readonly edges?: Edges },
  ): IsAny<Ns[number]> extends true
    ? Graph
    : NewGraph<MergedGraph<Ns, Name, EntryNames<Entry>, [Edges] extends [undefined] ? false : true>>;
  readonly prototype: Graph;
}

/**
 * A workflow graph: plain nodes wired by name. Pure structure — no execution (see `@graph/runtime`). All methods
 * are immutable and return new graphs; every build-time problem throws {@link GraphConfigError}.
 *
 * @example
 * ```ts
 * import { Graph, node } from "@graph/core";
 * const embed = node({ output: "embedding" }, ({ text }: { text: string }) => [text.length]);
 * const score = node({ output: "score" }, ({ embedding }: { embedding: number[] }) => embedding[0]);
 * const graph = new Graph([embed, score], { name: "scoring" });
 * graph.inputs.required; // Set { "text" }
 * graph.toMermaid();
 * ```
 */
export const Graph: GraphConstructor = GraphBase as unknown as GraphConstructor;

/** ` ('a', 'b')` — the nodes that are in a cycle, for the entrypoint hint (or a note that there are none). */
function cycleList(analysis: Analysis): string {
  const inCycles = [...analysis.cyclic].flatMap((c) => analysis.components[c]!);
  return inCycles.length === 0 ? " (this graph has none)" : ` (${quoteList(inCycles)})`;
}

function controlCondition(gate: AnyNode, target: string): string {
  if (gate.nodeType === "branch") {
    const g = gate as unknown as { whenTrue: Target; whenFalse: Target };
    return g.whenTrue === target ? "true" : "false";
  }
  return target;
}

/** `"timeout"` for a data edge carrying a timed pause's timed-out flag (its timeout path), else undefined. */
function timeoutCondition(from: AnyNode, edge: { readonly valueNames: readonly string[] }): string | undefined {
  if (from.kind !== "interrupt") return undefined;
  const flag = from.timedOutKey;
  return flag !== undefined && edge.valueNames.includes(flag) ? "timeout" : undefined;
}

function buildEdges(
  nodes: readonly AnyNode[],
  byName: ReadonlyMap<string, AnyNode>,
  explicit: GraphOptions["edges"],
  where: string,
): EdgeSpec[] {
  const edges: EdgeSpec[] = [];
  if (explicit === undefined) {
    const producers = new Map<string, string[]>();
    for (const n of nodes) for (const o of n.outputs) (producers.get(o) ?? producers.set(o, []).get(o)!).push(n.name);
    for (const n of nodes) {
      const byProducer = new Map<string, string[]>();
      for (const i of n.inputs)
        for (const p of producers.get(i) ?? []) (byProducer.get(p) ?? byProducer.set(p, []).get(p)!).push(i);
      for (const [p, values] of byProducer) edges.push({ from: p, to: n.name, kind: "data", valueNames: values });
    }
  } else {
    for (const [i, def] of explicit.entries()) {
      const [from, to, names] = def;
      for (const end of [from, to]) {
        if (!byName.has(end)) {
          throw new GraphConfigError(
            `Explicit edge ${i} [${from} → ${to}] names unknown node '${end}' in ${where}.${didYouMean(end, byName.keys())}\n  → Nodes: ${quoteList(byName.keys())}`,
            { where: end },
          );
        }
      }
      const source = byName.get(from)!;
      const target = byName.get(to)!;
      const carried = names ?? source.outputs.filter((o) => target.inputs.includes(o));
      for (const v of carried) {
        if (!source.outputs.includes(v) || !target.inputs.includes(v)) {
          throw new GraphConfigError(
            `Explicit edge [${from} → ${to}] carries '${v}', but ${!source.outputs.includes(v) ? `'${from}' does not output it (outputs: ${quoteList(source.outputs)})` : `'${to}' does not take it (inputs: ${quoteList(target.inputs)})`}.`,
            { where: from },
          );
        }
      }
      edges.push({ from, to, kind: carried.length === 0 ? "ordering" : "data", valueNames: carried });
    }
  }
  for (const n of nodes) {
    if (n.kind !== "gate") continue;
    for (const t of n.targets) {
      if (t === END) continue;
      if (t === n.name) {
        // route()/ifElse() reject this, but withName() can rename a gate to one of its own targets.
        throw new GraphConfigError(
          `Gate '${n.name}' targets itself in ${where}; a gate can't route to itself.\n  How to fix: rename the gate (.withName("…")) or remove '${t}' from its targets.`,
          {
            where: n.name,
          },
        );
      }
      if (!byName.has(t)) {
        throw new GraphConfigError(
          `Gate '${n.name}' targets '${t}', but there is no node named '${t}' in ${where}.${didYouMean(t, byName.keys())}\n  → Nodes: ${quoteList(byName.keys())}\n  How to fix: add the node, or fix the name in the gate's targets.`,
          { where: n.name },
        );
      }
      edges.push({ from: n.name, to: t, kind: "control", valueNames: [] });
    }
  }
  return edges;
}

function hasDefault(n: AnyNode, input: string): boolean {
  return n.hasDefault(input);
}

function computeInputSpec(
  nodes: readonly AnyNode[],
  analysis: Analysis,
  bound: Readonly<Record<string, unknown>>,
): InputSpec {
  const required = new Set<string>();
  const optional = new Set<string>();
  const seeds = new Set<string>();
  const external = new Map<string, AnyNode[]>(); // value → consumers that may need it from outside
  const seedNames = new Set<string>();
  for (const n of nodes) {
    const wired = analysis.wiredProducers.get(n.name)!;
    for (const input of n.inputs) {
      const producers = [...wired.get(input)!];
      const fromOutside = producers.length === 0;
      const onlyFeedback = producers.length > 0 && producers.every((p) => analysis.isFeedback(p, n.name));
      if (onlyFeedback) seedNames.add(input);
      if (fromOutside || onlyFeedback) (external.get(input) ?? external.set(input, []).get(input)!).push(n);
    }
  }
  for (const [value, consumers] of external) {
    const fallback = Object.hasOwn(bound, value) || consumers.every((c) => hasDefault(c, value));
    if (fallback) optional.add(value);
    else if (seedNames.has(value)) seeds.add(value);
    else required.add(value);
  }
  const all = new Set<string>();
  for (const v of external.keys()) all.add(v);
  return Object.freeze({ required, optional, seeds, bound: Object.freeze({ ...bound }), all });
}
