import { END, type End } from "./END.js";
import { GraphConfigError, RoutingError } from "./errors.js";
import { BaseNode, type BaseSpec } from "./internal/BaseNode.js";
import { describeValue, isPlainRecord } from "./internal/describe.js";
import { sha256, stableStringify } from "./internal/hash.js";
import { detectMode } from "./internal/params.js";
import { didYouMean, quoteList } from "./internal/suggest.js";
import type { NodeContext } from "./NodeContext.js";
import { type NodeFunction, resolveInputs, resolveName } from "./node.js";
import type { InputsFrom, NodeFn, ParamFor, ParamOf } from "./types/infer.js";
import type { NodeTypes } from "./types/ports.js";
import type { Empty, RenameKeys, RenamesFor, UnionToIntersection } from "./types/util.js";

/**
 * The node names a gate surely targets (END excluded), for the graph's check. A target typed as a union
 * (`cond ? "a" : "b"`) is left out: which one applies depends on run-time data.
 */
type TargetNames<T> = Exclude<T, End> & string;
type SureTargets<T extends readonly unknown[]> = TargetNames<
  { [I in keyof T]: IsUnion<T[I]> extends true ? never : T[I] }[number]
>;
type IsUnion<T> = [T] extends [UnionToIntersection<T>] ? false : true;
/** A gate function: synchronous, typed like a node function's inputs. */
type GateFunction<Inputs> = NodeFn<ParamFor<Inputs>, NodeContext>;

/**
 * A gate target: a node name or {@link END}.
 *
 * @example
 * ```ts
 * const targets: Target[] = ["retrieve", END];
 * ```
 */
export type Target = string | End;

interface GateSpec extends BaseSpec {
  readonly fn: NodeFunction;
  readonly targets: readonly Target[];
  readonly multiTarget: boolean;
  readonly fallback: Target | undefined;
  readonly defaultOpen: boolean;
  readonly implicitDefaults: ReadonlySet<string>;
  /** ifElse only. */
  readonly whenTrue?: Target;
  readonly whenFalse?: Target;
}

const targetLabel = (t: Target): string => (t === END ? "END" : typeof t === "string" ? `'${t}'` : describeValue(t));

/**
 * Shared behaviour of `route` and `ifElse` gates: synchronous functions that choose which targets run next.
 * Gates produce no data outputs.
 *
 * @example
 * ```ts
 * const gate: GateNode = route({ targets: ["a", END] }, ({ n }: { n: number }) => (n > 3 ? END : "a"));
 * gate.targets; // ["a", END]
 * ```
 */
export abstract class GateNode<
  Name extends string = any,
  In = any,
  Targets extends string = any,
> extends BaseNode<GateSpec> {
  readonly kind = "gate" as const;
  /** `"route"` or `"branch"` (`ifElse`). */
  abstract override readonly nodeType: "route" | "branch";
  /** Phantom (type-level only): the gate's inputs and the node names it may route to. */
  declare readonly "~types": NodeTypes<Name, In, Empty, Targets>;
  #hash: string | undefined;

  /** Declared targets (node names and possibly END). */
  get targets(): readonly Target[] {
    return this.spec.targets;
  }
  get multiTarget(): boolean {
    return this.spec.multiTarget;
  }
  get fallback(): Target | undefined {
    return this.spec.fallback;
  }
  /** Before the gate has decided, may its targets (inside the same cycle) run? */
  get defaultOpen(): boolean {
    return this.spec.defaultOpen;
  }
  get fn(): NodeFunction {
    return this.spec.fn;
  }
  /** True when the input has a default in the destructuring pattern. */
  hasDefault(input: string): boolean {
    const original = this.originalInput(input);
    return original !== undefined && this.spec.implicitDefaults.has(original);
  }
  get definitionHash(): string {
    this.#hash ??= sha256(
      stableStringify({
        kind: this.nodeType,
        source: Function.prototype.toString.call(this.spec.fn),
        name: this.spec.name,
        inputs: this.spec.inputs,
        targets: this.spec.targets.map((t) => (t === END ? "@END" : t)),
        multiTarget: this.spec.multiTarget,
        fallback: this.spec.fallback === END ? "@END" : this.spec.fallback,
        defaultOpen: this.spec.defaultOpen,
      }),
    );
    return this.#hash;
  }

  /** Converts the function's raw return value into a decision; throws {@link RoutingError} for bad values. */
  protected abstract normalize(raw: unknown): readonly Target[] | null;

  /**
   * Calls the gate function and returns its decision: a list of targets (possibly `[END]`), or `null` for no
   * decision. Throws {@link RoutingError} on an undeclared target or a non-synchronous result.
   */
  decide(inputs: Readonly<Record<string, unknown>>, ctx: unknown): readonly Target[] | null {
    const args: Record<string, unknown> = {};
    for (const p of this.spec.inputs) if (Object.hasOwn(inputs, p.name)) args[p.original] = inputs[p.name];
    const raw = this.spec.fn(args, ctx as never);
    if (raw !== null && typeof raw === "object" && typeof (raw as { then?: unknown }).then === "function") {
      throw new RoutingError(
        `Gate '${this.name}' returned a Promise. Gate functions must be synchronous.\n  How to fix: do the async work in a node before the gate and route on its output.`,
        this.name,
        raw,
      );
    }
    return this.normalize(raw);
  }

  protected checkTarget(value: unknown): Target {
    if (value === END && this.spec.targets.includes(END)) return END;
    if (typeof value === "string" && this.spec.targets.includes(value)) return value;
    if (value === END) {
      throw new RoutingError(
        `Gate '${this.name}' returned END, but END is not one of its targets (${this.spec.targets.map(targetLabel).join(", ")}).\n  How to fix: add END to the gate's targets if the workflow may end here, or return one of the declared targets.`,
        this.name,
        value,
      );
    }
    const names = this.spec.targets.filter((t): t is string => t !== END);
    const hint =
      value === "END"
        ? ' Return the END sentinel (import { END } from "@graph/core"), not the string "END".'
        : typeof value === "string"
          ? didYouMean(value, names)
          : "";
    throw new RoutingError(
      `Gate '${this.name}' returned ${typeof value === "string" ? `'${value}'` : String(value)}, which is not one of its targets (${this.spec.targets.map(targetLabel).join(", ")}).${hint}`,
      this.name,
      value,
    );
  }
}

/**
 * A routing gate created with {@link route}.
 *
 * @example
 * ```ts
 * const r: RouteNode = route({ targets: ["retrieve", END] }, ({ done }: { done: boolean }) => (done ? END : "retrieve"));
 * ```
 */
export class RouteNode<Name extends string = any, In = any, Targets extends string = any> extends GateNode<
  Name,
  In,
  Targets
> {
  readonly nodeType = "route" as const;
  /** @internal Use {@link route}. */
  constructor(spec: GateSpec) {
    super(spec);
  }
  protected rebuild(spec: GateSpec): this {
    return new RouteNode(spec) as this;
  }
  /** A copy of this gate with another name. */
  override withName<const N extends string>(name: N): NoInfer<RouteNode<N, In, Targets>> {
    return super.withName(name) as RouteNode<N, In, Targets>;
  }
  /** A copy with inputs renamed (`{ old: "new" }`). */
  override withInputs<const M extends RenamesFor<In, M>>(
    renames: M,
  ): NoInfer<RouteNode<Name, RenameKeys<In, M>, Targets>> {
    return super.withInputs(renames) as RouteNode<Name, RenameKeys<In, M>, Targets>;
  }
  /** Gates have no outputs; kept for symmetry with other nodes. */
  override withOutputs(renames: Readonly<Record<string, never>>): RouteNode<Name, In, Targets> {
    return super.withOutputs(renames) as RouteNode<Name, In, Targets>;
  }
  protected normalize(raw: unknown): readonly Target[] | null {
    if (raw === undefined || raw === null) return this.spec.fallback === undefined ? null : [this.spec.fallback];
    if (this.spec.multiTarget) {
      if (!Array.isArray(raw)) {
        throw new RoutingError(
          `Gate '${this.name}' has multiTarget: true and must return an array of targets, got ${typeof raw}.`,
          this.name,
          raw,
        );
      }
      const out = raw.map((t) => this.checkTarget(t));
      return out.length === 0 ? (this.spec.fallback === undefined ? null : [this.spec.fallback]) : [...new Set(out)];
    }
    if (Array.isArray(raw)) {
      throw new RoutingError(
        `Gate '${this.name}' returned an array; set multiTarget: true to route to several targets.`,
        this.name,
        raw,
      );
    }
    return [this.checkTarget(raw)];
  }
}

/**
 * A boolean gate created with {@link ifElse}.
 *
 * @example
 * ```ts
 * const b: IfElseNode = ifElse({ whenTrue: "fast", whenFalse: "slow" }, ({ hit }: { hit: boolean }) => hit);
 * ```
 */
export class IfElseNode<Name extends string = any, In = any, Targets extends string = any> extends GateNode<
  Name,
  In,
  Targets
> {
  readonly nodeType = "branch" as const;
  /** @internal Use {@link ifElse}. */
  constructor(spec: GateSpec) {
    super(spec);
  }
  protected rebuild(spec: GateSpec): this {
    return new IfElseNode(spec) as this;
  }
  /** A copy of this gate with another name. */
  override withName<const N extends string>(name: N): NoInfer<IfElseNode<N, In, Targets>> {
    return super.withName(name) as IfElseNode<N, In, Targets>;
  }
  /** A copy with inputs renamed (`{ old: "new" }`). */
  override withInputs<const M extends RenamesFor<In, M>>(
    renames: M,
  ): NoInfer<IfElseNode<Name, RenameKeys<In, M>, Targets>> {
    return super.withInputs(renames) as IfElseNode<Name, RenameKeys<In, M>, Targets>;
  }
  /** Gates have no outputs; kept for symmetry with other nodes. */
  override withOutputs(renames: Readonly<Record<string, never>>): IfElseNode<Name, In, Targets> {
    return super.withOutputs(renames) as IfElseNode<Name, In, Targets>;
  }
  get whenTrue(): Target {
    return this.spec.whenTrue!;
  }
  get whenFalse(): Target {
    return this.spec.whenFalse!;
  }
  protected normalize(raw: unknown): readonly Target[] | null {
    if (raw === true) return [this.spec.whenTrue!];
    if (raw === false) return [this.spec.whenFalse!];
    throw new RoutingError(
      `Gate '${this.name}' (ifElse) must return a boolean, got ${raw === null ? "null" : typeof raw} (${String(raw)}).\n  How to fix: return a comparison, e.g. \`return score > 0.5\`.`,
      this.name,
      raw,
    );
  }
}

/**
 * Options of {@link route}.
 *
 * @example
 * ```ts
 * const opts: RouteOptions = { targets: ["a", "b", END], fallback: "a" };
 * ```
 */
export interface RouteOptions {
  readonly targets: readonly Target[];
  readonly name?: string;
  readonly inputs?: readonly string[];
  /** Used when the function returns `undefined`. */
  readonly fallback?: Target;
  /** Return an array of targets that run in parallel. */
  readonly multiTarget?: boolean;
  /** Before the gate has decided, may its targets inside the same cycle run? Default true. */
  readonly defaultOpen?: boolean;
}

/**
 * Options of {@link ifElse}.
 *
 * @example
 * ```ts
 * const opts: IfElseOptions = { whenTrue: "fastPath", whenFalse: "fullRag" };
 * ```
 */
export interface IfElseOptions {
  readonly whenTrue: Target;
  readonly whenFalse: Target;
  readonly name?: string;
  readonly inputs?: readonly string[];
  readonly defaultOpen?: boolean;
}

function gateSpec(
  kind: string,
  options: { readonly name?: string; readonly inputs?: readonly string[]; readonly defaultOpen?: boolean },
  fn: NodeFunction,
) {
  if (typeof fn !== "function")
    throw new GraphConfigError(
      `${kind}() expects a function as its second argument, got ${describeValue(fn)}.\n  How to fix: a synchronous function that returns the decision, e.g. ({ score }) => score > 0.5.`,
    );
  const { name, inputs } = options;
  const resolved = resolveName(kind, name, fn);
  checkFlag(resolved, "defaultOpen", options.defaultOpen);
  const mode = detectMode(fn as never);
  if (mode !== "sync") {
    throw new GraphConfigError(
      `Gate '${resolved}' is ${mode}; gate functions must be synchronous.\n  How to fix: do the async work in a node before the gate and route on its output.`,
      { where: resolved },
    );
  }
  const { ports, implicitDefaults } = resolveInputs("gate", resolved, inputs, fn);
  return { name: resolved, inputs: ports, outputs: [], history: [], fn, implicitDefaults };
}

function checkFlag(name: string, key: string, value: unknown): void {
  if (value !== undefined && typeof value !== "boolean") {
    throw new GraphConfigError(
      `Gate '${name}': option '${key}' must be true or false, got ${describeValue(value)}.\n  How to fix: pass ${key}: true, ${key}: false, or leave it out.`,
      { where: name },
    );
  }
}

/** The options object itself, before any field is read. */
function checkOptionsObject(kind: string, options: unknown, example: string): void {
  if (!isPlainRecord(options)) {
    throw new GraphConfigError(
      `${kind}() expects an options object as its first argument, got ${describeValue(options)}.\n  How to fix: ${example}.`,
    );
  }
}

function checkTargets(name: string, targets: readonly Target[]): void {
  for (const t of targets) {
    if (t === END) continue;
    if (typeof t !== "string")
      throw new GraphConfigError(
        `Gate '${name}' has a target that is not a node name or END: ${describeValue(t)}.\n  How to fix: list node names as strings and END as the sentinel (import { END } from "@graph/core").`,
        { where: name },
      );
    if (t === "END") {
      throw new GraphConfigError(
        `Gate '${name}' lists the string "END" as a target.\n  How to fix: use the END sentinel: import { END } from "@graph/core".`,
        {
          where: name,
        },
      );
    }
    if (t === name)
      throw new GraphConfigError(`Gate '${name}' targets itself; a gate can't route to itself.`, { where: name });
  }
}

/**
 * Creates a routing gate: a synchronous function that returns a target name, `END`, `undefined` (→ `fallback`,
 * else nothing runs), or with `multiTarget: true` an array of targets that run in parallel.
 *
 * @example
 * ```ts
 * import { route, END } from "@graph/core";
 * const decide = route({ targets: ["retrieve", END] }, function decide({ messages }: { messages: string[] }) {
 *   return messages.length > 10 ? END : "retrieve";
 * });
 * ```
 */
export function route<
  const Name extends string = string,
  const T extends readonly Target[] = readonly Target[],
  const Inputs extends readonly string[] = never,
  F extends GateFunction<Inputs> = GateFunction<Inputs>,
>(
  options: RouteOptions & { readonly name?: Name; readonly targets: T; readonly inputs?: Inputs },
  fn: F,
): NoInfer<RouteNode<Name, InputsFrom<Inputs, ParamOf<F>, never>, SureTargets<T>>>;
export function route(options: RouteOptions, fn: NodeFunction): RouteNode {
  checkOptionsObject("route", options, 'route({ targets: ["next", END] }, fn)');
  if (!Array.isArray(options.targets))
    throw new GraphConfigError(
      `route() needs targets: an array of node names and/or END, got ${describeValue(options.targets)}.\n  How to fix: route({ targets: ["next", END] }, fn).`,
    );
  const base = gateSpec("route", options, fn);
  checkFlag(base.name, "multiTarget", options.multiTarget);
  const targets = [...options.targets];
  if (targets.length === 0)
    throw new GraphConfigError(`Gate '${base.name}' declares no targets.`, { where: base.name });
  checkTargets(base.name, targets);
  if (options.fallback !== undefined && !targets.includes(options.fallback)) {
    throw new GraphConfigError(
      `Gate '${base.name}' has fallback ${targetLabel(options.fallback)}, which is not one of its targets (${quoteList(targets.map((t) => (t === END ? "END" : t)))}).`,
      { where: base.name },
    );
  }
  return new RouteNode({
    ...base,
    targets,
    multiTarget: options.multiTarget ?? false,
    fallback: options.fallback,
    defaultOpen: options.defaultOpen ?? true,
  });
}

/**
 * Creates a boolean gate: the function returns `true` (→ `whenTrue`) or `false` (→ `whenFalse`); anything else is
 * a {@link RoutingError}.
 *
 * @example
 * ```ts
 * import { ifElse } from "@graph/core";
 * const check = ifElse({ whenTrue: "fastPath", whenFalse: "fullRag" }, function check({ query }: { query: string }) {
 *   return query.length < 20;
 * });
 * ```
 */
export function ifElse<
  const Name extends string = string,
  const WhenTrue extends Target = Target,
  const WhenFalse extends Target = Target,
  const Inputs extends readonly string[] = never,
  F extends GateFunction<Inputs> = GateFunction<Inputs>,
>(
  options: IfElseOptions & {
    readonly name?: Name;
    readonly whenTrue: WhenTrue;
    readonly whenFalse: WhenFalse;
    readonly inputs?: Inputs;
  },
  fn: F,
): NoInfer<IfElseNode<Name, InputsFrom<Inputs, ParamOf<F>, never>, SureTargets<[WhenTrue, WhenFalse]>>>;
export function ifElse(options: IfElseOptions, fn: NodeFunction): IfElseNode {
  checkOptionsObject("ifElse", options, 'ifElse({ whenTrue: "fastPath", whenFalse: "fullRag" }, fn)');
  const base = gateSpec("ifElse", options, fn);
  const targets: Target[] = [options.whenTrue, options.whenFalse];
  checkTargets(base.name, targets);
  if (options.whenTrue === options.whenFalse) {
    throw new GraphConfigError(
      `Gate '${base.name}' has the same target for true and false; use a plain edge instead.`,
      { where: base.name },
    );
  }
  return new IfElseNode({
    ...base,
    targets,
    multiTarget: false,
    fallback: undefined,
    defaultOpen: options.defaultOpen ?? true,
    whenTrue: options.whenTrue,
    whenFalse: options.whenFalse,
  });
}
