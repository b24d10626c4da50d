import { GraphConfigError } from "./errors.js";
import type { Graph } from "./Graph.js";
import { BaseNode, type BaseSpec } from "./internal/BaseNode.js";
import { describeValue, isPlainRecord } from "./internal/describe.js";
import { sha256, stableStringify } from "./internal/hash.js";
import { quoteList } from "./internal/suggest.js";
import type { FunctionNode } from "./node.js";
import type { NodeTypes, PauseOf } from "./types/ports.js";
import type { GraphResult } from "./types/result.js";
import type { Empty, RenameKeys, RenamesFor } from "./types/util.js";

/** A GraphNode's outputs as its graph sees them: the projected values and, under its name, the child's result. */
type NestedOutputs<Name extends string, Out, Nested, Pauses> = string extends Name
  ? Out
  : Out & { readonly [K in Name]: GraphResult<Nested, Pauses> };
/** Inner pauses seen from outside: the path gets the GraphNode's name in front. */
type PrefixedPauses<Name extends string, P> =
  P extends PauseOf<infer N, infer V, infer K> ? PauseOf<`${Name}/${N}`, V, K> : P;
/** Inner pauses after an output rename: the answer is supplied under the new name. */
type RenamedPauses<P, M> =
  P extends PauseOf<infer N, infer V, infer K>
    ? PauseOf<N, V, K extends keyof M ? (M[K] extends string ? M[K] : K) : K>
    : P;
type Mapped<In, P> = { [K in keyof In]: K extends P ? readonly In[K][] : In[K] };
type Columns<Out> = { [K in keyof Out]: Out[K][] };

/**
 * How `mapOver` combines several mapped inputs: `zip` pairs items by position (equal lengths required),
 * `product` runs every combination (first parameter varies slowest).
 *
 * @example
 * ```ts
 * const mode: MapMode = "product";
 * ```
 */
export type MapMode = "zip" | "product";

/**
 * The `mapOver` configuration of a GraphNode.
 *
 * @example
 * ```ts
 * const config: MapOverConfig = { params: ["query"], mode: "zip" };
 * ```
 */
export interface MapOverConfig {
  /** Public (outer) input names whose values are arrays to iterate. */
  readonly params: readonly string[];
  readonly mode: MapMode;
  /**
   * At most this many items run at once, in this process and across a worker pool (a distributed map splits into
   * at most this many chunks, each running its items one at a time). Absent: the runner's `maxConcurrency`.
   */
  readonly concurrency?: number;
}

/**
 * Options of `mapOver`.
 *
 * @example
 * ```ts
 * const options: MapOverOptions = { mode: "zip", concurrency: 3 };
 * ```
 */
export interface MapOverOptions {
  readonly mode?: MapMode;
  /** At most this many items at once (an integer ≥ 1), here and across workers. */
  readonly concurrency?: number;
}

interface GraphNodeSpec extends BaseSpec {
  readonly graph: Graph;
  readonly mapOver: MapOverConfig | undefined;
  readonly completeOnStop: boolean | undefined;
  readonly frames?: FramesConfig | undefined;
  /** Inner names of the graph's own loop state (see privateState.ts): inputs only once mapped in by name. */
  readonly privateState?: readonly string[];
}

/**
 * The pipeline a frames node stands for: its generator (`source`), and the inner graph (the nodes that consume its
 * frames), run once per frame with the frame under `output`. `graph.nodes` shows it under the source's name.
 *
 * @example
 * ```ts
 * import { Graph, node } from "@graph/core";
 * const pages = node({ output: "page", frames: true }, async function* pages() { yield 1; });
 * const double = node({ output: "twice" }, ({ page }: { page: number }) => page * 2);
 * const g = new Graph([pages, double]);
 * const config: FramesConfig | undefined = (g.nodes.get("pages") as GraphNode).framesConfig; // window 16
 * ```
 */
export interface FramesConfig {
  readonly source: FunctionNode;
  /** The source's output: one frame per yield. */
  readonly output: string;
  /** At most this many frames unfinished at once. */
  readonly window: number;
}

/**
 * A graph used as a node of another graph. Created by `graph.asNode()`. Its inputs are the inner graph's inputs,
 * its outputs the inner graph's outputs (rename either side with `withInputs` / `withOutputs`). At run time it
 * runs the inner graph as a child run; the parent's values hold the projected outputs and, under the node's name,
 * the child's own `RunResult`.
 *
 * @example
 * ```ts
 * const rag = new Graph([embed, retrieve], { name: "rag" });
 * const ragNode = rag.asNode().withInputs({ query: "question" }).mapOver("question");
 * const outer = new Graph([ragNode, summarize]);
 * ```
 */
export class GraphNode<
  Name extends string = any,
  In = any,
  Out = any,
  Nested = any,
  Pauses = any,
  Private = Empty,
> extends BaseNode<GraphNodeSpec> {
  readonly kind = "graph" as const;
  readonly nodeType = "graph" as const;
  /** Phantom (type-level only): `Nested` types the child's result under the node's name (inner output names). */
  declare readonly "~types": NodeTypes<
    Name,
    In,
    NestedOutputs<Name, Out, Nested, Pauses>,
    never,
    PrefixedPauses<Name, Pauses>,
    string extends Name ? true : false
  >;
  #hash: string | undefined;

  /** @internal Use `graph.asNode()`. */
  constructor(spec: GraphNodeSpec) {
    super(spec);
    if (spec.mapOver !== undefined) checkMappable(spec.name, spec.graph, spec.mapOver.params);
  }
  protected rebuild(spec: GraphNodeSpec): this {
    const mapOver = spec.mapOver;
    // Keep mapOver pointing at the same ports after input renames.
    if (mapOver !== undefined && spec.inputs !== this.spec.inputs) {
      const byOriginal = new Map(this.spec.inputs.map((p) => [p.name, p.original]));
      const params = mapOver.params.map((name) => spec.inputs.find((p) => p.original === byOriginal.get(name))!.name);
      return new GraphNode({ ...spec, mapOver: { ...mapOver, params } }) as this;
    }
    return new GraphNode(spec) as this;
  }

  /** A copy of this node with another name (also the key of its nested result). */
  override withName<const N extends string>(name: N): NoInfer<GraphNode<N, In, Out, Nested, Pauses, Private>> {
    return super.withName(name) as GraphNode<N, In, Out, Nested, Pauses, Private>;
  }
  /**
   * A copy with inputs renamed (`{ outer: "new" }`); all renames of one call apply at once. Naming a value of the
   * graph's own loop state (`{ log: "history" }`, see {@link GraphNode.privateState}) makes it an input: each call
   * is then seeded with the parent's value, or starts from the graph's own seed when there is none.
   */
  override withInputs<const M extends RenamesFor<In & Private, M>>(
    renames: M,
  ): GraphNode<
    Name,
    RenameKeys<In & Pick<Private, keyof M & keyof Private>, M>,
    Out,
    Nested,
    Pauses,
    Omit<Private, keyof M>
  > {
    const added = this.#mappedIn(renames);
    const from: BaseNode<GraphNodeSpec> =
      added.length === 0
        ? this
        : new GraphNode({
            ...this.spec,
            inputs: [...this.spec.inputs, ...added.map((v) => ({ name: v, original: v }))],
          });
    return BaseNode.prototype.withInputs.call(from, renames) as never;
  }

  /** Values of the graph's own loop state that `renames` names and that are not inputs yet. */
  #mappedIn(renames: unknown): string[] {
    if (!isPlainRecord(renames)) return [];
    const own = this.spec.privateState ?? [];
    return Object.keys(renames as object).filter(
      (k) => own.includes(k) && !this.inputs.includes(k) && !this.spec.inputs.some((p) => p.original === k),
    );
  }
  /** A copy with outputs renamed; an interrupt's answer is then supplied under the new name. */
  override withOutputs<const M extends RenamesFor<Out, M>>(
    renames: M,
  ): GraphNode<Name, In, RenameKeys<Out, M>, Nested, RenamedPauses<Pauses, M>, Private> {
    return super.withOutputs(renames) as GraphNode<
      Name,
      In,
      RenameKeys<Out, M>,
      Nested,
      RenamedPauses<Pauses, M>,
      Private
    >;
  }

  /** The inner graph. */
  get graph(): Graph {
    return this.spec.graph;
  }
  /**
   * The inner graph's own loop state that is not an input here: values it both reads and writes and seeds itself
   * (a bound value or a default), like a sub-agent's `log`. Each call starts from that seed; the parent feeds one only
   * when it maps it in with `withInputs({ log: "history" })`.
   */
  get privateState(): readonly string[] {
    const own = this.spec.privateState ?? [];
    return own.filter((v) => !this.spec.inputs.some((p) => p.original === v));
  }
  get mapOverConfig(): MapOverConfig | undefined {
    return this.spec.mapOver;
  }
  /** Set when this node is a frames pipeline (a frames node and its per-frame consumers). */
  get framesConfig(): FramesConfig | undefined {
    return this.spec.frames;
  }
  /** This boundary's `completeOnStop` (the `asNode` override, else the inner graph's setting). */
  get completeOnStop(): boolean {
    return this.spec.completeOnStop ?? this.spec.graph.completeOnStop;
  }
  /** True when the inner graph has async nodes, and for a frames pipeline (its frames are pulled asynchronously). */
  get isAsync(): boolean {
    return this.spec.frames !== undefined || this.spec.graph.hasAsyncNodes;
  }

  /** Inner name of a public input. */
  innerInput(name: string): string | undefined {
    return this.originalInput(name);
  }
  /** Inner name of a public output. */
  innerOutput(name: string): string | undefined {
    return this.spec.outputs.find((p) => p.name === name)?.original;
  }
  /** Public name of an inner output, if exposed. */
  outerOutput(inner: string): string | undefined {
    return this.spec.outputs.find((p) => p.original === inner)?.name;
  }
  /** Public name of an inner input. */
  outerInput(inner: string): string | undefined {
    return this.spec.inputs.find((p) => p.original === inner)?.name;
  }

  /** An input has a default when the inner graph has a fallback for it (bound value or node default). */
  hasDefault(input: string): boolean {
    const source = this.spec.frames?.source;
    if (source?.inputs.includes(input) && source.hasDefault(input)) return true;
    const inner = this.innerInput(input);
    return inner !== undefined && this.spec.graph.inputs.optional.has(inner);
  }

  /**
   * Runs the inner graph once per item of the given (public) inputs; each output becomes an array in item order,
   * unmapped inputs are broadcast. `zip` requires equal lengths; `product` is cartesian; `[]` gives `[]` outputs.
   * `concurrency` bounds the items running at once (the runner's `maxConcurrency` still applies on top).
   *
   * @example
   * ```ts
   * import { Graph, node } from "@graph/core";
   * const embed = node({ output: "vector" }, async function embed({ text }: { text: string }) {
   *   return [text.length];
   * });
   * const perItem = new Graph([embed], { name: "embed-one" });
   * const embedAll = perItem.asNode().mapOver("text", { concurrency: 3 }); // 3 texts at a time
   * ```
   */
  mapOver<const P extends keyof In & string>(
    params: P | readonly P[],
    options?: MapOverOptions,
  ): GraphNode<Name, Mapped<In, P>, Columns<Out>, Columns<Nested>, never, Private>;
  mapOver(params: string | readonly string[], options: MapOverOptions = {}): any {
    const example = `How to fix: .mapOver("${this.inputs[0] ?? "items"}") or .mapOver([${this.inputs
      .slice(0, 2)
      .map((i) => `"${i}"`)
      .join(", ")}], { mode: "product" }).`;
    if (typeof params !== "string" && !(Array.isArray(params) && params.every((p: unknown) => typeof p === "string")))
      throw new GraphConfigError(
        `GraphNode '${this.name}': mapOver takes an input name or an array of input names, got ${describeValue(params)}.\n  → Inputs: ${quoteList(this.inputs)}\n  ${example}`,
        { where: this.name },
      );
    if (!isPlainRecord(options))
      throw new GraphConfigError(
        `GraphNode '${this.name}': mapOver's second argument must be an options object ({ mode, concurrency }), got ${describeValue(options)}.\n  ${example}`,
        { where: this.name },
      );
    const unknown = Object.keys(options).find((key) => key !== "mode" && key !== "concurrency");
    if (unknown !== undefined)
      throw new GraphConfigError(
        `GraphNode '${this.name}': mapOver has no option '${unknown}' (its options are 'mode' and 'concurrency').\n  ${example}`,
        { where: this.name },
      );
    const list: string[] = typeof params === "string" ? [params] : [...params];
    if (list.length === 0)
      throw new GraphConfigError(`GraphNode '${this.name}': mapOver needs at least one input name.`, {
        where: this.name,
      });
    const mode = options.mode ?? "zip";
    if (mode !== "zip" && mode !== "product") {
      throw new GraphConfigError(
        `GraphNode '${this.name}': mapOver mode must be "zip" or "product", got ${typeof mode === "string" ? JSON.stringify(mode) : describeValue(mode)}.`,
        { where: this.name },
      );
    }
    const duplicate = list.find((p, i) => list.indexOf(p) !== i);
    if (duplicate !== undefined) {
      throw new GraphConfigError(
        `GraphNode '${this.name}': mapOver lists '${duplicate}' twice.\n  How to fix: name each mapped input once.`,
        { where: this.name },
      );
    }
    for (const p of list) {
      if (!this.inputs.includes(p)) {
        throw new GraphConfigError(
          `GraphNode '${this.name}' cannot map over '${p}': it is not one of its inputs (${quoteList(this.inputs)}).`,
          { where: this.name },
        );
      }
    }
    const concurrency = options.concurrency;
    if (concurrency !== undefined && !(Number.isSafeInteger(concurrency) && concurrency >= 1)) {
      throw new GraphConfigError(
        `GraphNode '${this.name}': mapOver concurrency must be an integer ≥ 1, got ${typeof concurrency === "number" ? String(concurrency) : describeValue(concurrency)}.\n  How to fix: .mapOver(${JSON.stringify(list.length === 1 ? list[0] : list)}, { concurrency: 3 }) runs 3 items at a time; leave it out to use the runner's maxConcurrency.`,
        { where: this.name },
      );
    }
    return new GraphNode({
      ...this.spec,
      mapOver: concurrency === undefined ? { params: list, mode } : { params: list, mode, concurrency },
    });
  }

  get definitionHash(): string {
    this.#hash ??= sha256(
      stableStringify({
        kind: "graph",
        name: this.spec.name,
        graph: this.spec.graph.definitionHash,
        inputs: this.spec.inputs,
        outputs: this.spec.outputs,
        // The concurrency limit is how items are scheduled, not what they compute: changing it keeps stored runs.
        mapOver: this.spec.mapOver && { params: this.spec.mapOver.params, mode: this.spec.mapOver.mode },
        completeOnStop: this.spec.completeOnStop,
        frames: this.spec.frames?.source.definitionHash,
      }),
    );
    return this.#hash;
  }
}

/** Build-time rule: a graph with interrupts can't be mapped. */
export function checkMappable(where: string, graph: Graph, params: readonly string[] | undefined): void {
  const found = graph.interruptPaths;
  if (found.length === 0) return;
  throw new GraphConfigError(
    `GraphNode '${where}' maps over ${quoteList(params ?? [])}, but its graph contains interrupts: ${quoteList(found)}.\n` +
      `  → mapOver runs the graph many times in one batch, while an interrupt pauses for a human; they can't mix.\n` +
      `  How to fix: run the graph with runner.run() in a loop, one item at a time, instead of mapOver/runner.map.`,
    { where },
  );
}

/** @internal Creates the GraphNode for `graph.asNode()`. */
export function makeGraphNode(graph: Graph, name: string, completeOnStop: boolean | undefined): GraphNode {
  const privateState = graph.privateState;
  return new GraphNode({
    name,
    inputs: [...graph.inputs.all].filter((n) => !privateState.includes(n)).map((n) => ({ name: n, original: n })),
    outputs: graph.outputs.map((n) => ({ name: n, original: n })),
    history: [],
    graph,
    mapOver: undefined,
    completeOnStop,
    privateState,
  });
}

/**
 * @internal The node a frames source and its per-frame consumers become in their graph: named like the source,
 * its inputs the source's and the consumers' outside inputs, its outputs the frames and every consumer's output
 * (each a list in frame order).
 */
export function makeFramesNode(source: FunctionNode, graph: Graph, window: number): GraphNode {
  const output = source.outputs[0]!;
  const inputs = [...new Set([...source.inputs, ...[...graph.inputs.all].filter((i) => i !== output)])];
  return new GraphNode({
    name: source.name,
    inputs: inputs.map((n) => ({ name: n, original: n })),
    outputs: [output, ...graph.outputs].map((n) => ({ name: n, original: n })),
    history: [],
    graph,
    mapOver: undefined,
    completeOnStop: undefined,
    frames: { source, output, window },
  });
}
