import type { PermitSignal } from "@graph/runtime";
import type { Redis } from "ioredis";
import { connect, redisUrl } from "./internal/connection.js";

/** Options of a {@link RedisPermitSignal}. */
export interface RedisPermitSignalOptions {
  /** Redis URL. Default `REDIS_URL`, else `redis://127.0.0.1:6379`. */
  readonly connection?: string | undefined;
  /**
   * The pub/sub channel: the same in every process sharing the store's permits. Default `"graph:permit-released"`
   * (a `GraphWorker` uses `<prefix>:permit-released`, its key prefix being `"graph"` by default).
   */
  readonly channel?: string;
}

/**
 * A {@link PermitSignal} on Redis pub/sub: a runner's release of a store-wide permit (a node's `concurrency` or
 * `rateLimit` slot, a queue's run-level key) is published on one channel, and the waiters of that permit in every
 * other process take it at once instead of at their next poll. Two connections, opened on first use: one publishes,
 * its duplicate subscribes. A `GraphWorker` wires one into the runner it builds; give one to any other `Runner` on
 * the same checkpointer (a web server running runs itself) so its waiters hear the workers' releases, and theirs.
 *
 * @example
 * ```ts
 * import { Runner } from "@graph/runtime";
 * import { RedisPermitSignal } from "@graph/queue-bullmq";
 *
 * declare const checkpointer: import("@graph/checkpoint").Checkpointer; // the workers' store
 * const permitSignal = new RedisPermitSignal({ connection: "redis://127.0.0.1:6379" });
 * const runner = new Runner({ checkpointer, permitSignal });
 * // … on shutdown:
 * await runner.close();
 * await permitSignal.close();
 * ```
 */
export class RedisPermitSignal implements PermitSignal {
  readonly #url: string;
  readonly #channel: string;
  readonly #listeners = new Map<string, Set<() => void>>();
  #publisher: Redis | undefined;
  #subscriber: Redis | undefined;
  #ready: Promise<void> | undefined;
  #closed = false;

  constructor(options: RedisPermitSignalOptions = {}) {
    this.#url = redisUrl(options.connection);
    this.#channel = options.channel ?? "graph:permit-released";
  }

  /** Opens both connections and subscribes now (else on first use), so the first wait hears the first release. */
  ready(): Promise<void> {
    this.#pub();
    this.#ready ??= (async () => {
      const subscriber = connect(this.#url);
      this.#subscriber = subscriber;
      subscriber.on("message", (channel: string, key: string) => {
        if (channel !== this.#channel) return;
        for (const onReleased of [...(this.#listeners.get(key) ?? [])]) onReleased();
      });
      await subscriber.subscribe(this.#channel);
    })();
    return this.#ready;
  }

  notify(key: string): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return this.#pub()
      .publish(this.#channel, key)
      .then(() => {});
  }

  subscribe(key: string, onReleased: () => void): () => void {
    if (!this.#closed) void this.ready().catch(() => {});
    let set = this.#listeners.get(key);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(key, set);
    }
    set.add(onReleased);
    return () => {
      set.delete(onReleased);
      if (set.size === 0 && this.#listeners.get(key) === set) this.#listeners.delete(key);
    };
  }

  /** Closes the connections; later notifications are dropped (waiters fall back to polling). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#listeners.clear();
    await this.#ready?.catch(() => {});
    await Promise.all([this.#subscriber?.quit().catch(() => {}), this.#publisher?.quit().catch(() => {})]);
  }

  #pub(): Redis {
    this.#publisher ??= connect(this.#url);
    return this.#publisher;
  }
}
