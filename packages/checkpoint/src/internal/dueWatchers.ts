import { CheckpointError } from "../errors.js";
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

/** The connection a store's push of due times keeps open while runners watch (a LISTEN, a pub/sub subscriber). */
export interface DueConnection {
  /** Opens the connection (called for the first watcher; a failure is reported to that watcher). */
  open(): Promise<void>;
  /** Closes it (after the last watcher leaves, and on close()); never throws. */
  drop(): Promise<void>;
}

/**
 * What every store that pushes due times between processes shares: the checks of `watchDue`, the watchers, one
 * connection opened for the first and dropped after the last, and a refusal after `close()`. A store names itself
 * (`"PostgresCheckpointer"`) and how it listens (`"LISTEN for"`) for its messages.
 */
export class DuePush {
  readonly watchers = new DueWatchers();
  readonly #store: string;
  readonly #listening: string;
  readonly #connection: DueConnection;
  #opening: Promise<void> | undefined;
  #closed = false;

  constructor(store: string, listening: string, connection: DueConnection) {
    this.#store = store;
    this.#listening = listening;
    this.#connection = connection;
  }

  /** Whether close() was called (a connection lost afterwards is not reopened). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Adds a watcher and opens the connection if it is the first; the returned function removes it. */
  async watch(onDue: (at: Date) => void): Promise<() => Promise<void>> {
    if (typeof onDue !== "function")
      throw new CheckpointError({
        message: `${this.#store}.watchDue(onDue): onDue must be a function (at: Date) => void.`,
        operation: "watchDue",
      });
    if (this.#closed)
      throw new CheckpointError({
        message: `${this.#store}.watchDue() was called after close(). Create a new checkpointer instead.`,
        operation: "watchDue",
      });
    const remove = this.watchers.add(onDue);
    try {
      await this.open();
    } catch (error) {
      remove();
      throw new CheckpointError({
        message: `${this.#store}.watchDue(): could not ${this.#listening} due times (${error instanceof Error ? error.message : String(error)}). Runners re-read nextDue meanwhile.`,
        operation: "watchDue",
        cause: error,
      });
    }
    return async () => {
      remove();
      if (this.watchers.size === 0) await this.#drop();
    };
  }

  /** Opens the connection once however many ask at the same time (also to reopen a lost one). */
  open(): Promise<void> {
    this.#opening ??= this.#connection.open().catch((error: unknown) => {
      this.#opening = undefined;
      throw error;
    });
    return this.#opening;
  }

  /** Forgets the connection (it was lost): the next open() opens a new one. */
  lost(): void {
    this.#opening = undefined;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#drop();
  }

  async #drop(): Promise<void> {
    const opening = this.#opening;
    this.#opening = undefined;
    await opening?.catch(() => undefined);
    await this.#connection.drop();
  }
}
