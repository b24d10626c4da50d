/**
 * The listeners of a store's `watchDue`: added and removed by runners, told each due time the store learns of (its
 * own writes, or a notification from another process). A listener that throws is the runner's bug, never the
 * writer's: it is called on its own turn of the event loop and its error ignored.
 */
export class DueWatchers {
  readonly #listeners = new Set<(at: Date) => void>();

  /** How many listen now (a store opens its notification connection for the first, closes it after the last). */
  get size(): number {
    return this.#listeners.size;
  }

  /** Adds `onDue`; the returned function removes it (once, idempotently). */
  add(onDue: (at: Date) => void): () => void {
    // One entry per subscription, even for the same function given twice.
    const listener = (at: Date) => onDue(at);
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Tells every listener about `at` (epoch ms or a Date; invalid values are dropped). */
  notify(at: number | Date): void {
    const ms = typeof at === "number" ? at : at.getTime();
    if (!Number.isFinite(ms) || this.#listeners.size === 0) return;
    for (const listener of [...this.#listeners])
      setImmediate(() => {
        try {
          listener(new Date(ms));
        } catch {
          // A listener's own failure: the due time is still stored, and re-reads find it.
        }
      });
  }
}
