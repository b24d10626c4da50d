/** A one-reader async queue: a run's events as they arrive; ends (or throws) when closed. */
export class EventQueue<T> implements AsyncIterable<T> {
  readonly #items: T[] = [];
  #waiting: (() => void) | undefined;
  #done = false;
  #error: unknown;
  #failed = false;

  push(item: T): void {
    this.#items.push(item);
    this.#wake();
  }

  close(error?: unknown): void {
    this.#done = true;
    if (error !== undefined) {
      this.#failed = true;
      this.#error = error;
    }
    this.#wake();
  }

  #wake(): void {
    const w = this.#waiting;
    this.#waiting = undefined;
    w?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      const item = this.#items.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (this.#done) {
        if (this.#failed) throw this.#error;
        return;
      }
      await new Promise<void>((resolve) => {
        this.#waiting = resolve;
      });
    }
  }
}
