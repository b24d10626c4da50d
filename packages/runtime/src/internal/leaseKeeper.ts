import * as Effect from "effect/Effect";
import * as Fiber from "effect/Fiber";

/**
 * Keeps a lease alive lazily: a single timer, due at the first stop poll or renewal, and the keeper fiber only once
 * it fires. A run shorter than that interval (most runs) pays for a timer, not for a fiber and its scope.
 */
export class Keeper {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #fiber: Fiber.RuntimeFiber<void> | undefined;

  /** `loop` starts with a poll or renewal (its first wait is the timer's) and runs until interrupted. */
  constructor(loop: () => Effect.Effect<void>, firstAfterMs: number) {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#fiber = Effect.runFork(loop());
    }, firstAfterMs);
  }

  /** Disarms the timer, or interrupts the fiber and waits until it stopped (no renewal runs after this). */
  stop(): Effect.Effect<void> {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      return Effect.void;
    }
    const fiber = this.#fiber;
    this.#fiber = undefined;
    return fiber === undefined ? Effect.void : Fiber.interrupt(fiber);
  }
}
