/** One event as the page receives it: the runtime event, flattened and previewed, with its node path. */
export interface PageEvent {
  /** Increasing per devtools instance; the SSE `id:` (what `Last-Event-ID` names on reconnect). */
  readonly id: number;
  readonly type: string;
  /** The top-level workflow this event belongs to (nested runs and map items report to their root). */
  readonly root: string;
  readonly workflowId: string;
  /** For node events: the node's path from the root graph, e.g. `research/read`. */
  readonly path?: string;
  readonly timestamp: number;
  readonly [field: string]: unknown;
}

/**
 * A bounded log of page events with ids. A reader that reconnects with `Last-Event-ID` gets what it missed when
 * that is still in the log; otherwise it must start over from the oldest kept event (`since` returns undefined).
 *
 * @example
 * ```ts
 * const log = new EventLog(2);
 * log.append({ type: "RunStart", root: "wf", workflowId: "wf", timestamp: 0 });
 * log.since(0); // [the event with id 1]
 * ```
 */
export class EventLog {
  readonly #capacity: number;
  readonly #events: PageEvent[] = [];
  #nextId = 1;
  readonly #listeners = new Set<(event: PageEvent) => void>();

  constructor(capacity: number) {
    if (!(Number.isInteger(capacity) && capacity >= 1))
      throw new RangeError(`EventLog capacity must be an integer ≥ 1, got ${String(capacity)}.`);
    this.#capacity = capacity;
  }

  append(fields: Omit<PageEvent, "id">): PageEvent {
    const event = { ...fields, id: this.#nextId++ } as PageEvent;
    this.#events.push(event);
    if (this.#events.length > this.#capacity) this.#events.splice(0, this.#events.length - this.#capacity);
    for (const l of this.#listeners) l(event);
    return event;
  }

  /** Everything kept, oldest first. */
  all(): readonly PageEvent[] {
    return this.#events;
  }

  /** The events after `lastId`; undefined when some of them were already dropped (the reader must reset). */
  since(lastId: number): readonly PageEvent[] | undefined {
    const oldest = this.#events[0]?.id ?? this.#nextId;
    if (lastId + 1 < oldest) return undefined;
    return this.#events.filter((e) => e.id > lastId);
  }

  get lastId(): number {
    return this.#nextId - 1;
  }

  /** Events appended but no longer kept (the log is bounded): a page that starts over can't see them. */
  get notKept(): number {
    return (this.#events[0]?.id ?? this.#nextId) - 1;
  }

  subscribe(listener: (event: PageEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
