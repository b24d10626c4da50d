import { GraphConfigError } from "./errors.js";
import { BaseNode, type BaseSpec } from "./internal/BaseNode.js";
import { describeValue, isPlainRecord } from "./internal/describe.js";
import { sha256, stableStringify } from "./internal/hash.js";
import type { NodeTypes, PendingPause } from "./types/ports.js";
import type { RenameKeys, RenamesFor } from "./types/util.js";

/**
 * Auto-resolves an interrupt: return an answer to continue without a human, or `undefined` to pause.
 *
 * @example
 * ```ts
 * const handler: InterruptHandler = (draft) => (String(draft).length < 100 ? "ok" : undefined);
 * ```
 */
export type InterruptHandler = (value: unknown) => unknown;

interface InterruptSpec extends BaseSpec {
  readonly handler: InterruptHandler | undefined;
}

/**
 * Options of {@link interrupt}.
 *
 * @example
 * ```ts
 * const opts: InterruptOptions = { name: "approval", input: "draft", response: "decision" };
 * ```
 */
export interface InterruptOptions {
  readonly name: string;
  /** The value shown to the human (`pause.value`). */
  readonly input: string;
  /** The output the human's answer becomes (`pause.responseKey`). */
  readonly response: string;
  readonly handler?: InterruptHandler;
}

/**
 * A human-in-the-loop node: when reached with no value for its response, the run pauses.
 *
 * @example
 * ```ts
 * const approval: InterruptNode = interrupt({ name: "approval", input: "draft", response: "decision" });
 * approval.responseKey; // "decision"
 * ```
 */
export class InterruptNode<Name extends string = any, In = any, Out = any> extends BaseNode<InterruptSpec> {
  readonly kind = "interrupt" as const;
  readonly nodeType = "interrupt" as const;
  /** Phantom (type-level only): `In` is the shown value, `Out` the answer; the graph resolves the pause's type. */
  declare readonly "~types": NodeTypes<
    Name,
    In,
    Out,
    never,
    PendingPause<Name, keyof In & string, keyof Out & string, In[keyof In]>
  >;
  #hash: string | undefined;
  /** @internal Use {@link interrupt}. */
  constructor(spec: InterruptSpec) {
    super(spec);
  }
  protected rebuild(spec: InterruptSpec): this {
    return new InterruptNode(spec) as this;
  }
  /** A copy of this interrupt with another name. */
  override withName<const N extends string>(name: N): NoInfer<InterruptNode<N, In, Out>> {
    return super.withName(name) as InterruptNode<N, In, Out>;
  }
  /** A copy with its input renamed (`{ draft: "text" }`). */
  override withInputs<const M extends RenamesFor<In, M>>(
    renames: M,
  ): NoInfer<InterruptNode<Name, RenameKeys<In, M>, Out>> {
    return super.withInputs(renames) as InterruptNode<Name, RenameKeys<In, M>, Out>;
  }
  /** A copy with its response renamed (`{ decision: "verdict" }`). */
  override withOutputs<const M extends RenamesFor<Out, M>>(
    renames: M,
  ): NoInfer<InterruptNode<Name, In, RenameKeys<Out, M>>> {
    return super.withOutputs(renames) as InterruptNode<Name, In, RenameKeys<Out, M>>;
  }
  /** The (public) name of the value shown to the human. */
  get inputName(): string {
    return this.inputs[0]!;
  }
  /** The (public) name the answer must be supplied under. */
  get responseKey(): string {
    return this.outputs[0]!;
  }
  /** Interrupt inputs have no defaults. */
  hasDefault(_input: string): boolean {
    return false;
  }
  get handler(): InterruptHandler | undefined {
    return this.spec.handler;
  }
  get definitionHash(): string {
    this.#hash ??= sha256(
      stableStringify({
        kind: "interrupt",
        name: this.spec.name,
        inputs: this.spec.inputs,
        outputs: this.spec.outputs,
        handler: this.spec.handler,
      }),
    );
    return this.#hash;
  }
}

/**
 * Creates an interrupt node. It pauses the run when reached and no value for `response` exists; resume by running
 * again with `{ [response]: answer }`. A `handler` that returns a value answers automatically.
 *
 * @example
 * ```ts
 * import { interrupt } from "@graph/core";
 * const approval = interrupt({ name: "approval", input: "draft", response: "decision" });
 * const autoOk = interrupt({ name: "review", input: "draft", response: "decision", handler: (d) => (String(d).length < 100 ? "ok" : undefined) });
 * ```
 */
export function interrupt<
  const Name extends string,
  const Input extends string,
  const Response extends string,
  Value = unknown,
  Answer = unknown,
>(
  options: Omit<InterruptOptions, "handler"> & {
    readonly name: Name;
    readonly input: Input;
    readonly response: Response;
    /** Annotate its parameter and return type to type the shown value and the answer. */
    readonly handler?: { bivariant(value: Value): Answer | undefined }["bivariant"];
  },
): NoInfer<InterruptNode<Name, { [K in Input]: Value }, { [K in Response]: Answer }>>;
export function interrupt(options: InterruptOptions): InterruptNode {
  const example = 'interrupt({ name: "approval", input: "draft", response: "decision" })';
  if (!isPlainRecord(options))
    throw new GraphConfigError(
      `interrupt() needs an options object { name, input, response }, got ${describeValue(options)}.\n  How to fix: ${example}.`,
    );
  if (typeof options.name !== "string")
    throw new GraphConfigError(
      `interrupt() needs a name (a string), got ${describeValue(options.name)}.\n  How to fix: ${example}.`,
    );
  for (const key of ["input", "response"] as const) {
    if (typeof options[key] !== "string" || options[key].length === 0) {
      throw new GraphConfigError(
        `Interrupt '${options.name}' needs '${key}' (a value name), got ${describeValue(options[key])}.\n  How to fix: ${example}.`,
        { where: options.name },
      );
    }
  }
  if (options.handler !== undefined && typeof options.handler !== "function") {
    throw new GraphConfigError(
      `Interrupt '${options.name}' has a handler that is not a function (got ${describeValue(options.handler)}).\n  How to fix: pass handler: (value) => answer | undefined, or leave it out to always pause.`,
      { where: options.name },
    );
  }
  if (options.input === options.response) {
    throw new GraphConfigError(
      `Interrupt '${options.name}' uses '${options.input}' as both input and response; give the answer its own name.`,
      {
        where: options.name,
      },
    );
  }
  return new InterruptNode({
    name: options.name,
    inputs: [{ name: options.input, original: options.input }],
    outputs: [{ name: options.response, original: options.response }],
    history: [],
    handler: options.handler,
  });
}
