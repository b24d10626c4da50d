/**
 * A run's events as a Redis stream (one per submission): the worker appends each event and finally the result or
 * the error; readers replay it from the start with blocking `XREAD`s, so a late reader misses nothing.
 */
import type { Redis } from "ioredis";

/** What one stream entry holds. */
export type EntryKind = "event" | "result" | "error" | "attempt";

export interface StreamEntry {
  readonly kind: EntryKind;
  readonly body: string;
}

/** How long a finished run's stream stays readable. */
const FINISHED_STREAM_TTL_S = 24 * 3600;

/**
 * Appends entries in order. Commands go out on one connection without waiting for each other, so order holds and a
 * busy run costs one round trip per flush, not per event.
 */
export class StreamWriter {
  readonly #pending: Promise<unknown>[] = [];

  constructor(
    private readonly redis: Redis,
    private readonly key: string,
  ) {}

  append(kind: EntryKind, body: string): void {
    const sent = this.redis.xadd(this.key, "*", "k", kind, "b", body);
    sent.catch(() => {});
    this.#pending.push(sent);
  }

  /** Waits for everything appended so far; then, when `finished`, lets the stream expire. */
  async flush(finished = false): Promise<void> {
    const pending = this.#pending.splice(0);
    await Promise.all(pending);
    if (finished) await this.redis.expire(this.key, FINISHED_STREAM_TTL_S);
  }
}

/**
 * Reads a stream from its first entry until an entry of a final kind, blocking up to `blockMs` per call. Uses its
 * own connection (a blocking read would stall other commands); the caller closes it.
 */
export async function* readStream(
  redis: Redis,
  key: string,
  isFinal: (entry: StreamEntry) => boolean,
  blockMs = 1000,
): AsyncGenerator<StreamEntry> {
  let last = "0";
  for (;;) {
    const reply = (await redis.xread("COUNT", 500, "BLOCK", blockMs, "STREAMS", key, last)) as
      | [string, [string, string[]][]][]
      | null;
    if (reply === null) continue;
    for (const [, entries] of reply)
      for (const [id, fields] of entries) {
        last = id;
        const entry = toEntry(fields);
        yield entry;
        if (isFinal(entry)) return;
      }
  }
}

function toEntry(fields: readonly string[]): StreamEntry {
  let kind: EntryKind = "event";
  let body = "";
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === "k") kind = fields[i + 1] as EntryKind;
    else if (fields[i] === "b") body = fields[i + 1]!;
  }
  return { kind, body };
}

/** True when the stream already ends with a result or an error (the run was answered by an earlier delivery). */
export async function isAnswered(redis: Redis, key: string): Promise<boolean> {
  const last = (await redis.xrevrange(key, "+", "-", "COUNT", 1)) as [string, string[]][];
  const fields = last[0]?.[1];
  if (fields === undefined) return false;
  const kind = toEntry(fields).kind;
  return kind === "result" || kind === "error";
}
