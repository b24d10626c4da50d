import { type Duration, parseDuration } from "./duration.js";
import { GraphConfigError } from "./errors.js";
import { describeValue, isPlainRecord } from "./internal/describe.js";
import { InterruptNode } from "./interrupt.js";

/**
 * Options of {@link sleep}: either `duration` after the value `input` exists, or `until` the time held by a value.
 *
 * @example
 * ```ts
 * const a: SleepOptions = { name: "cool-off", input: "order", duration: "1m", output: "cooledOff" };
 * const b: SleepOptions = { name: "wait-for-slot", until: "slotStart", output: "slotReached" };
 * ```
 */
export interface SleepOptions {
  readonly name: string;
  /** The value the sleep waits behind (it starts once the value exists). Not with `until`. */
  readonly input?: string;
  /** How long to sleep, from the moment the node is reached. */
  readonly duration?: Duration;
  /** The name of a value holding the wake-up time: a `Date`, an ISO 8601 string or epoch milliseconds. */
  readonly until?: string;
  /** The value the sleep produces when it wakes: the due time, in epoch milliseconds. */
  readonly output: string;
}

/**
 * A durable sleep: when reached, the workflow pauses and its wake-up time is stored with the pause (not kept in a
 * timer in memory); the runner's scheduler resumes it when the time comes, in this process or any other on the same
 * store. The output is the due time in epoch milliseconds. Changing `duration` changes the graph's definition hash.
 *
 * @example
 * ```ts
 * import { Graph, node, sleep } from "@graph/core";
 * const coolOff = sleep({ name: "cool-off", input: "order", duration: "1m", output: "cooledOff" });
 * const ship = node({ name: "ship", output: "shipped" }, async ({ order, cooledOff }: { order: string; cooledOff: number }) => `${order}@${cooledOff}`);
 * const graph = new Graph([coolOff, ship]);
 * ```
 */
export function sleep<const Name extends string, const Input extends string, const Output extends string>(options: {
  readonly name: Name;
  readonly input: Input;
  readonly duration: Duration;
  readonly output: Output;
}): NoInfer<InterruptNode<Name, { [K in Input]: unknown }, { [K in Output]: number }>>;
export function sleep<const Name extends string, const Until extends string, const Output extends string>(options: {
  readonly name: Name;
  readonly until: Until;
  readonly output: Output;
}): NoInfer<InterruptNode<Name, { [K in Until]: Date | string | number }, { [K in Output]: number }>>;
export function sleep(options: SleepOptions): InterruptNode {
  const example = 'sleep({ name: "cool-off", input: "order", duration: "1m", output: "cooledOff" })';
  if (!isPlainRecord(options))
    throw new GraphConfigError(
      `sleep() needs an options object, got ${describeValue(options)}.\n  How to fix: ${example}, or sleep({ name, until: "<value holding a time>", output }).`,
    );
  const name = options.name;
  if (typeof name !== "string")
    throw new GraphConfigError(
      `sleep() needs a name (a string), got ${describeValue(name)}.\n  How to fix: ${example}.`,
    );
  const where = `sleep '${name}'`;
  if (typeof options.output !== "string" || options.output.length === 0)
    throw new GraphConfigError(
      `The ${where} needs 'output' (the value it produces on waking), got ${describeValue(options.output)}.\n  How to fix: ${example}.`,
      { where },
    );
  const hasUntil = options.until !== undefined;
  if (hasUntil === (options.duration !== undefined))
    throw new GraphConfigError(
      `The ${where} needs exactly one of 'duration' (how long) and 'until' (a value holding the wake-up time).\n  How to fix: ${example}, or sleep({ name: "${name}", until: "deadline", output: "${options.output}" }).`,
      { where },
    );
  if (hasUntil && options.input !== undefined)
    throw new GraphConfigError(
      `The ${where} has both 'until' and 'input': with 'until' the sleep waits behind the value it reads.\n  How to fix: remove 'input'.`,
      { where },
    );
  const input = hasUntil ? options.until : options.input;
  if (typeof input !== "string" || input.length === 0)
    throw new GraphConfigError(
      `The ${where} needs '${hasUntil ? "until" : "input"}' (a value name), got ${describeValue(input)}.\n  How to fix: ${example}.`,
      { where },
    );
  if (input === options.output)
    throw new GraphConfigError(
      `The ${where} uses '${input}' as both its input and its output; give the output its own name.`,
      {
        where,
      },
    );
  const afterMs = hasUntil ? undefined : parseDuration(options.duration, `duration of the ${where}`);
  return new InterruptNode({
    name,
    inputs: [{ name: input, original: input }],
    outputs: [{ name: options.output, original: options.output }],
    history: [],
    handler: undefined,
    timing: afterMs === undefined ? { wait: "sleep", untilInput: true } : { wait: "sleep", afterMs },
  });
}
