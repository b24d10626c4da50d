/**
 * The phantom type record every node and graph carries under `"~types"` (declared only: it does not exist at run
 * time). The static graph types read it; users read it through {@link InputsOf} and {@link OutputsOf}.
 */
export interface NodeTypes<
  Name extends string = string,
  In = any,
  Out = any,
  Targets extends string = never,
  Pauses = never,
  Dynamic extends boolean = false,
> {
  readonly name: Name;
  /** What the node takes: required keys required, keys with a default optional. */
  readonly in: In;
  /** What the node produces, with types. */
  readonly out: Out;
  /** route/ifElse targets (node names; END excluded). */
  readonly targets: Targets;
  /** Interrupts this node may pause at (see {@link PauseOf}). */
  readonly pauses: Pauses;
  /** True for a GraphNode whose name is not a literal: its nested result's key is unknown to the checker. */
  readonly dynamic: Dynamic;
}

/** The widest {@link NodeTypes}: what any node's record is assignable to. */
export type AnyNodeTypes = NodeTypes<string, any, any, any, any, boolean>;

/** Anything that carries a {@link NodeTypes} record. */
export interface Typed<T extends AnyNodeTypes = AnyNodeTypes> {
  readonly "~types": T;
}

/**
 * An interrupt's pause before the graph resolved its value type: `input` is the value shown to the human, looked
 * up in the graph's produced values when the graph is built.
 */
export interface PendingPause<N extends string = string, Input extends PropertyKey = string, K = string, V = unknown> {
  readonly nodeName: N;
  readonly input: Input;
  readonly responseKey: K;
  readonly value: V;
}

/**
 * Why and where a run paused, typed by the graph: `value` has the interrupt input's type, `responseKey` is the name
 * the answer must be supplied under (after the GraphNodes' renames).
 *
 * @example
 * ```ts
 * const pause: PauseOf<"review", string, "verdict"> = { reason: "human_input", nodeName: "review", value: "draft", responseKey: "verdict" };
 * ```
 */
export interface PauseOf<N extends string = string, V = unknown, K extends string = string> {
  /**
   * `"human_input"`: an interrupt waits for an answer. `"map_dispatched"`: a mapped GraphNode's items were handed to
   * the runner's `mapDispatcher` (other processes run them); the run resumes, with no answer, once they are done.
   * `"sleep"`: a `sleep` node waits for its wake-up time. `"event"`: a `waitFor` node waits for an event.
   * `"budget"`: the run crossed its budget; `value` holds the totals, answer with the amounts to add.
   */
  readonly reason: "human_input" | "map_dispatched" | "sleep" | "event" | "budget";
  /** The interrupt's path (`"review/approval"` inside a nested graph). */
  readonly nodeName: N;
  /** The value shown to the human. */
  readonly value: V;
  /** The name the caller must supply the answer under (after the GraphNodes' renames). */
  readonly responseKey: K;
  /** When the pause ends by itself: a sleep's wake-up time, a timeout's deadline. Absent: it waits for an answer. */
  readonly wakeAt?: Date;
  /** A `waitFor` pause: the event it waits for and the run values the payload must match (payload field → value). */
  readonly waitingFor?: { readonly event: string; readonly match: Readonly<Record<string, unknown>> };
  /**
   * Which visit of `nodeName` this pause is (with a checkpointer: the workflow's `lastSuperstep` when it paused).
   * An answer that passes this pause as the run's `answering` option is taken only while it is still pending.
   */
  readonly visit?: number;
}

/**
 * What a caller must (required keys) or may (optional keys) pass to a node, a graph or a GraphNode. Values some
 * node of the graph produces are not inputs.
 *
 * @example
 * ```ts
 * const rag = new Graph([embed, retrieve]);
 * type In = InputsOf<typeof rag>; // { text: string; topK?: number }
 * ```
 */
export type InputsOf<G> = G extends { readonly "~types": { readonly in: infer In } } ? In : never;

/**
 * Every value a node, graph or GraphNode produces, with its type. A GraphNode also contributes
 * `{ [name]: RunResult<its outputs> }`.
 *
 * @example
 * ```ts
 * type Out = OutputsOf<typeof rag>; // { embedding: number[]; docs: string[] }
 * ```
 */
export type OutputsOf<G> = G extends { readonly "~types": { readonly out: infer Out } } ? Out : never;
