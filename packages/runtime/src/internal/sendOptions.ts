import { isGraphConfigError, parseDuration } from "@graph/core";
import { InvalidOptionError } from "../errors.js";
import type { SendOptions } from "../time.js";
import { MAX_BUFFERED_EVENT_BYTES } from "./eventBuffer.js";

/** A value as an error message shows it. */
export const describe = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "an array" : `${typeof value} ${JSON.stringify(value) ?? ""}`.trim();

/** The `buffer` option of `send` in milliseconds (undefined: drop events nobody waits for), checked. */
export function bufferOf(event: string, options: SendOptions | undefined): number | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== "object" || options === null || Object.keys(options).some((k) => k !== "buffer"))
    throw new InvalidOptionError(
      `runner.send("${event}"): the options must be { buffer } , got ${describe(options)}.\n  How to fix: runner.send("${event}", payload, { buffer: "10m" }).`,
      "options",
    );
  if (options.buffer === undefined) return undefined;
  let ms: number;
  try {
    ms = parseDuration(options.buffer, `buffer of runner.send("${event}")`);
  } catch (error) {
    if (isGraphConfigError(error)) throw new InvalidOptionError(error.message, "buffer");
    throw error;
  }
  if (new TextEncoder().encode(event).length > MAX_BUFFERED_EVENT_BYTES)
    throw new InvalidOptionError(
      `runner.send("${event.slice(0, 40)}…"): an event kept with { buffer } may have at most ${MAX_BUFFERED_EVENT_BYTES} bytes in its name.\n  How to fix: use a shorter event name.`,
      "buffer",
    );
  return ms;
}
