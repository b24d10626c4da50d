/** A value in run state: its data, its version (index of the step that wrote it) and who wrote it. */
export interface Slot {
  readonly value: unknown;
  readonly version: number;
  readonly writer: string;
}

/**
 * The values of one run. The names a graph knows get a number once per graph (plan.ts): their data, version and
 * writer live in arrays indexed by it, which the scheduler reads by number; `get`/`has`/`set` by name serve
 * everything else. Names the graph does not know (values the caller passed that no node uses) live in a map.
 */
export class ValueStore implements Iterable<[string, Slot]> {
  readonly #ids: ReadonlyMap<string, number>;
  readonly #names: readonly string[];
  readonly data: unknown[];
  /** 0 where there is no value. */
  readonly versions: number[];
  /** undefined where there is no value. */
  readonly writers: Array<string | undefined>;
  #others: Map<string, Slot> | undefined;

  constructor(ids: ReadonlyMap<string, number>, names: readonly string[]) {
    this.#ids = ids;
    this.#names = names;
    const n = names.length;
    this.data = new Array(n).fill(undefined);
    this.versions = new Array(n).fill(0);
    this.writers = new Array(n).fill(undefined);
  }

  /** Whether value number `id` has a value. */
  hasId(id: number): boolean {
    return this.writers[id] !== undefined;
  }

  setId(id: number, value: unknown, version: number, writer: string): void {
    this.data[id] = value;
    this.versions[id] = version;
    this.writers[id] = writer;
  }

  has(name: string): boolean {
    const id = this.#ids.get(name);
    return id === undefined ? (this.#others?.has(name) ?? false) : this.writers[id] !== undefined;
  }

  get(name: string): Slot | undefined {
    const id = this.#ids.get(name);
    if (id === undefined) return this.#others?.get(name);
    return this.#slot(id);
  }

  set(name: string, slot: Slot): void {
    const id = this.#ids.get(name);
    if (id === undefined) (this.#others ??= new Map()).set(name, slot);
    else this.setId(id, slot.value, slot.version, slot.writer);
  }

  /** Removes the value (as if nothing had written it). */
  delete(name: string): void {
    const id = this.#ids.get(name);
    if (id === undefined) {
      this.#others?.delete(name);
      return;
    }
    this.data[id] = undefined;
    this.versions[id] = 0;
    this.writers[id] = undefined;
  }

  /** Copies every value not written by `skip` into `into`, by name. */
  copyInto(into: Record<string, unknown>, skip: string): void {
    for (let id = 0; id < this.#names.length; id++) {
      const writer = this.writers[id];
      if (writer !== undefined && writer !== skip) into[this.#names[id]!] = this.data[id];
    }
    if (this.#others !== undefined)
      for (const [k, slot] of this.#others) if (slot.writer !== skip) into[k] = slot.value;
  }

  *[Symbol.iterator](): Iterator<[string, Slot]> {
    for (let id = 0; id < this.#names.length; id++) {
      const slot = this.#slot(id);
      if (slot !== undefined) yield [this.#names[id]!, slot];
    }
    if (this.#others !== undefined) yield* this.#others;
  }

  #slot(id: number): Slot | undefined {
    const writer = this.writers[id];
    return writer === undefined ? undefined : { value: this.data[id], version: this.versions[id]!, writer };
  }
}
