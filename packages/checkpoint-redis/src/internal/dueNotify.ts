/**
 * Due times pushed between processes with Redis pub/sub: after a write that may store a due time went through (see
 * `TimeIndex.around`), the writer publishes it on the store's channel; `DueSubscriber` keeps one subscriber
 * connection (a duplicate of the store's client) while runners watch and tells them each one. Pub/sub is fire and
 * forget: a message published while a subscriber reconnects is lost, and a writer that dies between its write and
 * the publish sends none; runners' re-reads of `nextDue` cover both.
 */
import { DuePush } from "@graph/checkpoint/adapter";
import type { Cluster, Redis } from "ioredis";

/** The channel of one store (its key prefix). Channels are not keys: Redis Cluster broadcasts them to every node. */
export function dueChannel(prefix: string): string {
  return `${prefix}due`;
}

/** One subscriber connection per checkpointer, open while someone watches. */
export class DueSubscriber {
  readonly #client: Redis | Cluster;
  readonly #channel: string;
  readonly #push: DuePush;
  #subscriber: Redis | Cluster | undefined;

  constructor(client: Redis | Cluster, channel: string) {
    this.#client = client;
    this.#channel = channel;
    this.#push = new DuePush("RedisCheckpointer", "subscribe to", {
      open: () => this.#open(),
      drop: () => this.#drop(),
    });
  }

  async watch(onDue: (at: Date) => void): Promise<() => Promise<void>> {
    return await this.#push.watch(onDue);
  }

  close(): Promise<void> {
    return this.#push.close();
  }

  async #open(): Promise<void> {
    // ioredis re-subscribes by itself after a reconnect.
    const subscriber = this.#client.duplicate() as Redis | Cluster;
    subscriber.on("error", () => undefined);
    subscriber.on("message", (channel: string, message: string) => {
      if (channel === this.#channel) this.#push.watchers.notify(Number(message));
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
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    if (subscriber === undefined) return;
    await subscriber.quit().catch(() => subscriber.disconnect());
  }
}
