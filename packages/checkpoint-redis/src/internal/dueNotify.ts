/**
 * Due times pushed between processes with Redis pub/sub: after a write that may store a due time went through (see
 * `TimeIndex.around`), the writer publishes it on the store's channel; `DueSubscriber` keeps one subscriber
 * connection (a duplicate of the store's client) while runners watch and tells them each one. Pub/sub is fire and
 * forget: a message published while a subscriber reconnects is lost, and a writer that dies between its write and
 * the publish sends none; runners' re-reads of `nextDue` cover both.
 */
import { CheckpointError } from "@graph/checkpoint";
import { DueWatchers } from "@graph/checkpoint/adapter";
import type { Cluster, Redis } from "ioredis";

/** The channel of one store (its key prefix). Channels are not keys: Redis Cluster broadcasts them to every node. */
export function dueChannel(prefix: string): string {
  return `${prefix}due`;
}

/** One subscriber connection per checkpointer, open while someone watches. */
export class DueSubscriber {
  readonly #client: Redis | Cluster;
  readonly #channel: string;
  readonly #watchers = new DueWatchers();
  #subscriber: Redis | Cluster | undefined;
  #opening: Promise<void> | undefined;
  #closed = false;

  constructor(client: Redis | Cluster, channel: string) {
    this.#client = client;
    this.#channel = channel;
  }

  async watch(onDue: (at: Date) => void): Promise<() => Promise<void>> {
    if (typeof onDue !== "function")
      throw new CheckpointError({
        message: "RedisCheckpointer.watchDue(onDue): onDue must be a function (at: Date) => void.",
        operation: "watchDue",
      });
    if (this.#closed)
      throw new CheckpointError({
        message: "RedisCheckpointer.watchDue() was called after close(). Create a new checkpointer instead.",
        operation: "watchDue",
      });
    const remove = this.#watchers.add(onDue);
    try {
      this.#opening ??= this.#open().catch((error: unknown) => {
        this.#opening = undefined;
        throw error;
      });
      await this.#opening;
    } catch (error) {
      remove();
      throw new CheckpointError({
        message: `RedisCheckpointer.watchDue(): could not subscribe to due times (${error instanceof Error ? error.message : String(error)}). Runners re-read nextDue meanwhile.`,
        operation: "watchDue",
        cause: error,
      });
    }
    return async () => {
      remove();
      if (this.#watchers.size === 0) await this.#drop();
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#drop();
  }

  async #open(): Promise<void> {
    // ioredis re-subscribes by itself after a reconnect.
    const subscriber = this.#client.duplicate() as Redis | Cluster;
    subscriber.on("error", () => undefined);
    subscriber.on("message", (channel: string, message: string) => {
      if (channel === this.#channel) this.#watchers.notify(Number(message));
    });
    try {
      await subscriber.subscribe(this.#channel);
    } catch (error) {
      subscriber.disconnect();
      throw error;
    }
    this.#subscriber = subscriber;
  }

  async #drop(): Promise<void> {
    const opening = this.#opening;
    this.#opening = undefined;
    await opening?.catch(() => undefined);
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    if (subscriber === undefined) return;
    await subscriber.quit().catch(() => subscriber.disconnect());
  }
}
