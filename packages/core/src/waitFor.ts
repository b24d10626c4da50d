import type { Duration } from "./duration.js";
import { GraphConfigError } from "./errors.js";
import { describeValue, isPlainRecord } from "./internal/describe.js";
import { InterruptNode, type TimedAnswer, timeoutOf } from "./interrupt.js";

/**
 * Options of {@link waitFor}.
 *
 * @example
 * ```ts
 * const opts: WaitForOptions = {
 *   name: "await-reply",
 *   event: "ticket.replied",
 *   match: { ticketId: "ticketId" },
 *   response: "reply",
 *   timeout: "4h",
 *   onTimeout: null,
 * };
 * ```
 */
export interface WaitForOptions {
  readonly name: string;
  /** The event name `runner.send(event, payload)` delivers. */
  readonly event: string;
  /** Payload field → the name of the run value it must equal (`{ ticketId: "ticketId" }`). At least one. */
  readonly match: Readonly<Record<string, string>>;
  /** The value the event's payload becomes. */
  readonly response: string;
  /** Values the wait starts behind (it begins once they exist), besides the matched ones. */
  readonly after?: string | readonly string[];
  readonly timeout?: Duration;
  readonly onTimeout?: unknown;
  readonly timedOut?: string;
}

/**
 * A pause answered by an event: `runner.send(event, payload)` resumes every workflow waiting here whose `match`
 * values equal the payload's fields, with the payload as `response`. The run does not need to know a workflow id.
 * With `timeout`, the pause resumes with `onTimeout` when no event came in time (and `timedOut`, when named, is
 * true). An event sent while nobody waits is not kept for later.
 *
 * @example
 * ```ts
 * import { waitFor } from "@graph/core";
 * const reply = waitFor({
 *   name: "await-reply",
 *   event: "ticket.replied",
 *   match: { ticketId: "ticketId" },
 *   response: "reply",
 *   timeout: "4h",
 *   onTimeout: null,
 *   timedOut: "noReply",
 * });
 * ```
 */
export function waitFor<
  const Name extends string,
  const Match extends Readonly<Record<string, string>>,
  const Response extends string,
  Payload = unknown,
  Fallback = never,
  const TimedOut extends string = never,
  const After extends string = never,
>(options: {
  readonly name: Name;
  readonly event: string;
  readonly match: Match;
  readonly response: Response;
  readonly after?: After | readonly After[];
  readonly timeout?: Duration;
  readonly onTimeout?: Fallback | ((shown: { [K in keyof Match]: unknown }) => Fallback);
  readonly timedOut?: TimedOut;
  /** Annotate only: `payload: undefined as unknown as MyPayload` types the response (never read). */
  readonly payload?: Payload;
}): NoInfer<
  InterruptNode<
    Name,
    { [K in Match[keyof Match] | After]: unknown },
    TimedAnswer<Response, Payload | Fallback, TimedOut>
  >
>;
export function waitFor(options: WaitForOptions): InterruptNode {
  const example =
    'waitFor({ name: "await-reply", event: "ticket.replied", match: { ticketId: "ticketId" }, response: "reply", timeout: "4h", onTimeout: null })';
  if (!isPlainRecord(options))
    throw new GraphConfigError(
      `waitFor() needs an options object, got ${describeValue(options)}.\n  How to fix: ${example}.`,
    );
  const name = options.name;
  if (typeof name !== "string")
    throw new GraphConfigError(
      `waitFor() needs a name (a string), got ${describeValue(name)}.\n  How to fix: ${example}.`,
    );
  const where = `waitFor '${name}'`;
  for (const key of ["event", "response"] as const) {
    if (typeof options[key] !== "string" || options[key].trim().length === 0)
      throw new GraphConfigError(
        `The ${where} needs '${key}' (a non-empty string), got ${describeValue(options[key])}.\n  How to fix: ${example}.`,
        { where },
      );
  }
  const match = options.match;
  const fields = isPlainRecord(match) ? Object.keys(match).sort() : [];
  if (fields.length === 0)
    throw new GraphConfigError(
      `The ${where} needs 'match': at least one payload field and the run value it must equal, got ${describeValue(match)}.\n  How to fix: match: { ticketId: "ticketId" } (the event's payload.ticketId must equal the run's value 'ticketId').`,
      { where },
    );
  const values: string[] = [];
  for (const field of fields) {
    const value = (match as Record<string, unknown>)[field];
    if (typeof value !== "string" || value.length === 0)
      throw new GraphConfigError(
        `The ${where} matches payload field '${field}' on ${describeValue(value)}: it must name a run value (a string).\n  How to fix: match: { ${field}: "${field}" }.`,
        { where },
      );
    if (value === options.response)
      throw new GraphConfigError(
        `The ${where} matches on '${value}', the value its own event produces; match on a value the run has before it waits.`,
        { where },
      );
    if (!values.includes(value)) values.push(value);
  }
  const after = options.after === undefined ? [] : typeof options.after === "string" ? [options.after] : options.after;
  if (!Array.isArray(after) || after.some((a) => typeof a !== "string" || a.length === 0 || a === options.response))
    throw new GraphConfigError(
      `The ${where} has 'after' ${describeValue(options.after)}: it must be a value name or a list of them (not its own response).\n  How to fix: after: "notified".`,
      { where },
    );
  for (const a of after) if (!values.includes(a)) values.push(a);
  values.sort();
  const timing = timeoutOf(where, options, [...values, options.response]);
  const sortedMatch = Object.fromEntries(fields.map((f) => [f, (match as Record<string, string>)[f]!]));
  return new InterruptNode({
    name,
    inputs: values.map((v) => ({ name: v, original: v })),
    outputs: [
      { name: options.response, original: options.response },
      ...(timing?.timedOut === undefined ? [] : [{ name: timing.timedOut, original: timing.timedOut }]),
    ],
    history: [],
    handler: undefined,
    timing: { wait: "event", event: options.event, match: sortedMatch, ...timing },
  });
}
