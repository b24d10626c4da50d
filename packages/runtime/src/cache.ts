/**
 * A node-result cache. Keys are the node's definition hash plus its input values; values are the node's outputs.
 * Implement it to plug in Redis or anything else.
 *
 * @example
 * ```ts
 * const cache: NodeCache = new MemoryCache({ maxEntries: 500 });
 * const runner = new Runner({ cache });
 * ```
 */
export interface NodeCache {
  get(
    key: string,
  ):
    | Promise<{ readonly value: Readonly<Record<string, unknown>> } | undefined>
    | { readonly value: Readonly<Record<string, unknown>> }
    | undefined;
  set(key: string, value: Readonly<Record<string, unknown>>): Promise<void> | void;
}

/**
 * The default in-memory LRU cache.
 *
 * @example
 * ```ts
 * import { MemoryCache, Runner } from "@graph/runtime";
 * const runner = new Runner({ cache: new MemoryCache({ maxEntries: 1000 }) });
 * ```
 */
export class MemoryCache implements NodeCache {
  readonly #max: number;
  readonly #entries = new Map<string, Readonly<Record<string, unknown>>>();

  constructor(options: { readonly maxEntries?: number } = {}) {
    this.#max = options.maxEntries ?? 1000;
  }

  /** Number of entries held. */
  get size(): number {
    return this.#entries.size;
  }

  get(key: string): { readonly value: Readonly<Record<string, unknown>> } | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    // Refresh recency: Map keeps insertion order, so re-insert at the end.
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return { value };
  }

  set(key: string, value: Readonly<Record<string, unknown>>): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    while (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value as string);
  }
}
