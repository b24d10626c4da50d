import type * as z from "zod";
import { type Duration, parseDuration } from "./duration.js";
import { GraphConfigError } from "./errors.js";
import { BaseNode, type BaseSpec } from "./internal/BaseNode.js";
import { describeValue, isPlainRecord } from "./internal/describe.js";
import { sha256, stableStringify } from "./internal/hash.js";
import { toJsonSchema } from "./internal/zod.js";
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
  readonly timing: PauseTiming | undefined;
  readonly schema?: z.ZodType | undefined;
}

/**
 * What a timed pause waits for and until when. `sleep()` and `waitFor()` build one, and `interrupt()` with a
 * `timeout`; the runtime stores the due time with the pause and resumes the workflow when it comes.
 *
 * @example
 * ```ts
 * const timing: PauseTiming = { wait: "answer", afterMs: 60_000, onTimeout: "refund", timedOut: "pickupTimedOut" };
 * ```
 */
export interface PauseTiming {
  /** `"answer"`: a caller's answer (an interrupt); `"sleep"`: only the time; `"event"`: an event sent with `runner.send`. */
  readonly wait: "answer" | "sleep" | "event";
  /** Milliseconds from the moment the node paused: a sleep's length or a pause's timeout. */
  readonly afterMs?: number;
  /** A sleep until the value of its input (a `Date`, an ISO string or epoch ms) instead of `afterMs`. */
  readonly untilInput?: boolean;
  /** The answer when the timeout comes first: a value, or a function of the shown value. */
  readonly onTimeout?: unknown;
  /** The name of the boolean output that says whether the pause timed out (a gate can route on it). */
  readonly timedOut?: string;
  /** `"event"`: the event name. */
  readonly event?: string;
  /** `"event"`: payload field → the run value it must equal. */
  readonly match?: Readonly<Record<string, string>>;
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
  /** How long to wait for an answer (see {@link Duration}); then the pause resumes with `onTimeout`. */
  readonly timeout?: Duration;
  /** The answer when `timeout` passes first: a value, or a function of the shown value. Required with `timeout`. */
  readonly onTimeout?: unknown;
  /** With `timeout`: a boolean output, true when the pause timed out, for a gate to route on (both paths show). */
  readonly timedOut?: string;
  /**
   * The answer's zod schema: the runtime refuses an answer that does not match it (`InvalidAnswerError`, with the
   * schema's issues, nothing stored), and it types the answer (`decision` is `z.output<typeof schema>`).
   */
  readonly schema?: z.ZodType;
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
  /** The answer's zod schema (`interrupt({ schema })`), when it has one. */
  get answerSchema(): z.ZodType | undefined {
    return this.spec.schema;
  }
  /** The answer's JSON Schema (of the schema's input), for a form that asks for it; undefined without a schema. */
  answerJsonSchema(): { [key: string]: unknown } | undefined {
    return this.spec.schema === undefined
      ? undefined
      : toJsonSchema(this.spec.schema, { io: "input", unrepresentable: "any" });
  }
  /** The due time rules of a timed pause (sleep, timeout, event); undefined for a plain interrupt. */
  get timing(): PauseTiming | undefined {
    return this.spec.timing;
  }
  /** A `waitFor` pause: payload field → the (public) name of the input it must equal. */
  get eventMatch(): Readonly<Record<string, string>> | undefined {
    const match = this.spec.timing?.match;
    if (match === undefined) return undefined;
    const out: Record<string, string> = {};
    for (const [field, value] of Object.entries(match))
      out[field] = this.spec.inputs.find((p) => p.original === value)?.name ?? value;
    return out;
  }
  /** The (public) name of the timed-out flag output, when the pause has one. */
  get timedOutKey(): string | undefined {
    return this.spec.timing?.timedOut === undefined ? undefined : this.outputs[1];
  }
  get definitionHash(): string {
    this.#hash ??= sha256(
      stableStringify({
        kind: "interrupt",
        name: this.spec.name,
        inputs: this.spec.inputs,
        outputs: this.spec.outputs,
        handler: this.spec.handler,
        // Only present when set, so the hashes of untimed interrupts stay what they were.
        ...(this.spec.timing === undefined ? {} : { timing: this.spec.timing }),
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
  const TimedOut extends string = never,
>(
  options: Omit<InterruptOptions, "handler" | "onTimeout" | "timedOut"> & {
    readonly name: Name;
    readonly input: Input;
    readonly response: Response;
    /** Annotate its parameter and return type to type the shown value and the answer. */
    readonly handler?: { bivariant(value: Value): Answer | undefined }["bivariant"];
    /** Checked against the answer's type (from `handler`); it does not widen it. */
    readonly onTimeout?: NoInfer<Answer> | { bivariant(value: Value): NoInfer<Answer> }["bivariant"];
    readonly timedOut?: TimedOut;
    /** The answer's schema: checked by the runtime on every resume, and the answer's type. */
    readonly schema?: z.ZodType<Answer>;
  },
): NoInfer<InterruptNode<Name, { [K in Input]: Value }, TimedAnswer<Response, Answer, TimedOut>>>;
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
  const schema = options.schema;
  if (schema !== undefined && typeof (schema as { safeParse?: unknown }).safeParse !== "function")
    throw new GraphConfigError(
      `Interrupt '${options.name}' has a schema that is not a zod schema (got ${describeValue(schema)}).\n  How to fix: schema: z.object({ approved: z.boolean() }), or leave it out.`,
      { where: options.name },
    );
  const timing = timeoutOf(`interrupt '${options.name}'`, options, [options.input, options.response]);
  return new InterruptNode({
    name: options.name,
    inputs: [{ name: options.input, original: options.input }],
    outputs: [
      { name: options.response, original: options.response },
      ...(timing?.timedOut === undefined ? [] : [{ name: timing.timedOut, original: timing.timedOut }]),
    ],
    history: [],
    handler: options.handler,
    timing: timing === undefined ? undefined : { wait: "answer", ...timing },
    ...(schema === undefined ? {} : { schema }),
  });
}

/**
 * The outputs of a pause: the answer under `Response`, and the boolean timed-out flag under `Flag` when it has one.
 *
 * @example
 * ```ts
 * type Out = TimedAnswer<"decision", string, "timedOut">; // { decision: string; timedOut: boolean }
 * ```
 */
export type TimedAnswer<Response extends string, Answer, Flag extends string = never> = {
  [K in Response | Flag]: K extends Response ? Answer : boolean;
};

/**
 * Checks the `timeout` / `onTimeout` / `timedOut` options of a pause (`where`: "interrupt 'x'"); `taken` are the
 * value names the node already uses (the flag needs its own).
 * @internal
 */
export function timeoutOf(
  where: string,
  options: { readonly timeout?: unknown; readonly onTimeout?: unknown; readonly timedOut?: unknown },
  taken: readonly string[],
): Pick<PauseTiming, "afterMs" | "onTimeout" | "timedOut"> | undefined {
  const { timeout, onTimeout, timedOut } = options;
  if (timeout === undefined) {
    for (const [key, value] of [
      ["onTimeout", onTimeout],
      ["timedOut", timedOut],
    ] as const) {
      if (value !== undefined)
        throw new GraphConfigError(
          `The ${where} has '${key}' but no 'timeout', so it would never be used.\n  How to fix: add timeout: "1m" (or remove '${key}').`,
          { where },
        );
    }
    return undefined;
  }
  const afterMs = parseDuration(timeout, `timeout of the ${where}`);
  if (!("onTimeout" in options) || onTimeout === undefined)
    throw new GraphConfigError(
      `The ${where} has a timeout but no 'onTimeout': the answer to use when nobody answers in time.\n  How to fix: add onTimeout: "refund" (a value) or onTimeout: (shown) => answer; add timedOut: "<flag name>" to route on it.`,
      { where },
    );
  if (timedOut !== undefined && (typeof timedOut !== "string" || timedOut.length === 0 || taken.includes(timedOut)))
    throw new GraphConfigError(
      `The ${where} has timedOut ${describeValue(timedOut)}: it must be the name of a new boolean value (not one of ${taken.map((t) => `'${t}'`).join(", ")}).\n  How to fix: timedOut: "pickupTimedOut".`,
      { where },
    );
  return { afterMs, onTimeout, ...(timedOut === undefined ? {} : { timedOut: timedOut as string }) };
}
