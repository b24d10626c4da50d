/**
 * A run that several HTTP responses may follow: its chunks are read once, kept in order while it runs, and every
 * stream opened on it replays them from the first and then follows the run live — a client that reloads mid-run
 * sees the whole answer so far and the rest as it comes, and the run is never started twice.
 */
import { createUIMessageStream } from "ai";
import type { GraphUIMessage, GraphUIMessageChunk } from "../parts.js";

export class LiveRun {
  readonly #log: GraphUIMessageChunk[] = [];
  #done = false;
  #wake: () => void = () => {};
  #changed: Promise<void>;
  /** Settles when the run's last chunk has been read. */
  readonly finished: Promise<void>;

  constructor(chunks: AsyncIterable<GraphUIMessageChunk>) {
    this.#changed = this.#nextChange();
    this.finished = this.#pump(chunks);
  }

  #nextChange(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
    });
  }

  #notify(): void {
    const wake = this.#wake;
    this.#changed = this.#nextChange();
    wake();
  }

  async #pump(chunks: AsyncIterable<GraphUIMessageChunk>): Promise<void> {
    try {
      for await (const chunk of chunks) {
        this.#log.push(chunk);
        this.#notify();
      }
    } finally {
      this.#done = true;
      this.#notify();
    }
  }

  /** A stream of every chunk so far, then the live ones until the run's `finish`. */
  stream(): ReadableStream<GraphUIMessageChunk> {
    return createUIMessageStream<GraphUIMessage>({
      execute: async ({ writer }) => {
        let next = 0;
        for (;;) {
          const changed = this.#changed;
          while (next < this.#log.length) writer.write(this.#log[next++]!);
          if (this.#done) return;
          await changed;
        }
      },
    });
  }
}
