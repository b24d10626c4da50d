/**
 * Per-node concurrency limits of one runner (`node({ concurrency })`): permits counted per key, handed to waiters in
 * arrival order. A key's entry exists only while a call holds or waits for one of its permits, so a limit per
 * tenant does not grow with the number of tenants ever seen.
 */
import * as Effect from "effect/Effect";

interface Slot {
  active: number;
  readonly waiters: (() => void)[];
}

export class NodePermits {
  readonly #slots = new Map<string, Slot>();

  /** Takes a permit of `key` now if one is free and nobody waits before us; false otherwise. */
  tryAcquire(key: string, limit: number): boolean {
    const slot = this.#slots.get(key);
    if (slot === undefined) {
      this.#slots.set(key, { active: 1, waiters: [] });
      return true;
    }
    if (slot.active >= limit || slot.waiters.length > 0) return false;
    slot.active++;
    return true;
  }

  /**
   * Takes one of `limit` permits of `key`, waiting in arrival order; `onWait(active, queued)` when it has to wait.
   * Interrupting a waiting call leaves the queue (a permit granted in that instant goes to the next waiter).
   */
  acquire(key: string, limit: number, onWait: (active: number, queued: number) => void): Effect.Effect<void> {
    return Effect.async<void>((resume) => {
      let slot = this.#slots.get(key);
      if (slot === undefined) {
        slot = { active: 0, waiters: [] };
        this.#slots.set(key, slot);
      }
      if (slot.active < limit && slot.waiters.length === 0) {
        slot.active++;
        resume(Effect.void);
        return;
      }
      onWait(slot.active, slot.waiters.length + 1);
      const current = slot;
      let granted = false;
      const waiter = (): void => {
        granted = true;
        current.active++;
        resume(Effect.void);
      };
      current.waiters.push(waiter);
      return Effect.sync(() => {
        // Interrupted (a stop won the race): leave the queue, or give back a permit granted in that instant.
        if (granted) return this.release(key);
        const at = current.waiters.indexOf(waiter);
        if (at >= 0) current.waiters.splice(at, 1);
        if (current.active === 0 && current.waiters.length === 0) this.#slots.delete(key);
      });
    });
  }

  /** Gives one permit of `key` back (to the first waiter, if any). */
  release(key: string): void {
    const slot = this.#slots.get(key);
    if (slot === undefined) return;
    slot.active--;
    const next = slot.waiters.shift();
    if (next !== undefined) next();
    else if (slot.active === 0) this.#slots.delete(key);
  }
}
