/**
 * Key names. Every key of one workflow carries the id of its ROOT workflow as its Redis Cluster hash tag (`{…}`):
 * the root id is the workflow id up to its first `/` (child workflows are `root/name`, `root/name/<i>`, …). So a Lua
 * script can touch a workflow's keys and its root's record in one slot — a child's write is checked against the
 * root's lease epoch atomically, on Cluster too. The listing indexes share one fixed tag of their own.
 *
 * Layout under the prefix `P` (default `graph:`), for workflow id `W` = root `R` + rest `/…` (with `%`, `{`, `}`
 * escaped):
 *
 * | key | type | content |
 * |---|---|---|
 * | `P{R}/…:w` | hash | the workflow record (status, lease, stop request, counters, timestamps) |
 * | `P{R}/…:s` | hash | one field per step (`<superstep>:<nodeName>`) → the encoded step |
 * | `P{R}/…:o` | sorted set | step fields scored by step `index` (ordered reads) |
 * | `P{graph-index}:all` | sorted set | every workflow id, scored by `createdAt` (listing) |
 * | `P{graph-index}:roots` | sorted set | top-level workflow ids, scored by `createdAt` |
 * | `P{graph-index}:ids` | sorted set | every workflow id, score 0 (lexicographic range = child workflows) |
 * | `P{graph-index}:ttl` | sorted set | top-level ids scored by a lower bound of their last update (ttl pruning) |
 * | `P{graph-index}:status:<status>` | sorted set | workflows that have (or are being given) the status, by `createdAt` |
 * | `P{graph-index}:graph:<name>` | sorted set | the workflows of one graph, scored by `createdAt` |
 * | `P{graph-index}:spend` / `:sseq` | hashes | per workflow: status writes in flight, and their count (`statuses.ts`) |
 * | `P{graph-index}:due` | sorted set | workflows with a due time, scored by a lower bound of it (`listDue`) |
 * | `P{graph-index}:wait:<n>:<event><key>` | sorted set | workflows waiting for one event wait (`n`: the event's length) |
 * | `P{graph-index}:tpend` / `:tseq` / `:twait` | hashes | per workflow: time-index writes in flight, their count, and the wait sets it is in |
 *
 * The workflow hash holds its due time (`wa`) and wait (`we`, `wk`); see `times.ts` for how the indexes follow it.
 * | `P{graph-index}:structures` | hash | graph definition hash → graph structure (JSON text, written once) |
 * | `P{graph-index}:cache` | hash | node-cache key → serialised outputs |
 * | `P{graph-index}:cacheUsed` | sorted set | node-cache keys scored by last use (eviction order) |
 * | `P{graph-index}:cacheExpires` | sorted set | node-cache keys scored by expiry (only entries with a ttl) |
 */
import { CheckpointError } from "@graph/checkpoint";

/** The three keys of one workflow. */
export interface WorkflowKeys {
  readonly workflow: string;
  readonly steps: string;
  readonly order: string;
}

/** The index keys (one hash slot). */
export interface IndexKeys {
  readonly all: string;
  readonly roots: string;
  readonly ids: string;
  readonly ttl: string;
  readonly due: string;
  readonly pending: string;
  readonly sequence: string;
  readonly waits: string;
  readonly statusPending: string;
  readonly statusSequence: string;
}

/** The hash tag of the index keys. */
const INDEX_TAG = "graph-index";

/** Escapes the characters that would end or start a hash tag (and `%`, so the escape is reversible). */
function tagOf(id: string): string {
  return id.replace(/[%{}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Checks a key prefix: braces would change which part of a key Redis Cluster hashes. */
function validatePrefix(prefix: unknown): asserts prefix is string {
  if (typeof prefix !== "string" || /[{}]/.test(prefix)) {
    throw new CheckpointError({
      message:
        `RedisCheckpointer: prefix ${JSON.stringify(prefix)} must be a string without "{" or "}" ` +
        '(braces would change the Redis Cluster hash slot of the keys), e.g. "graph:" or "myapp:graph:".',
      operation: "constructor",
      path: "prefix",
    });
  }
}

/** Builds the key names of one store (one prefix). */
export class KeySpace {
  readonly prefix: string;
  readonly index: IndexKeys;
  readonly #indexBase: string;
  /** Graph structures by definition hash (`putGraphStructure`): shared by every workflow, so no workflow's slot. */
  readonly structures: string;
  /** Node-cache entries, their last uses and expiries (see `cacheScripts.ts`). */
  readonly cache: { readonly values: string; readonly used: string; readonly expires: string };

  constructor(prefix: string) {
    validatePrefix(prefix);
    this.prefix = prefix;
    const base = `${prefix}{${INDEX_TAG}}`;
    this.#indexBase = base;
    this.index = {
      all: `${base}:all`,
      roots: `${base}:roots`,
      ids: `${base}:ids`,
      ttl: `${base}:ttl`,
      due: `${base}:due`,
      pending: `${base}:tpend`,
      sequence: `${base}:tseq`,
      waits: `${base}:twait`,
      statusPending: `${base}:spend`,
      statusSequence: `${base}:sseq`,
    };
    this.structures = `${base}:structures`;
    this.cache = { values: `${base}:cache`, used: `${base}:cacheUsed`, expires: `${base}:cacheExpires` };
  }

  /** The sorted set of the workflows waiting for one event wait (in the index slot). */
  wait(wait: { readonly event: string; readonly key: string }): string {
    return `${this.#indexBase}:wait:${wait.event.length}:${wait.event}${wait.key}`;
  }

  /** The sorted set of the workflows with one status (in the index slot). */
  status(status: string): string {
    return `${this.#indexBase}:status:${status}`;
  }

  /** The sorted set of the workflows of one graph (in the index slot). */
  graph(name: string): string {
    return `${this.#indexBase}:graph:${name}`;
  }

  workflow(id: string): WorkflowKeys {
    const root = rootOf(id);
    const base = `${this.prefix}{${tagOf(root)}}${tagOf(id.slice(root.length))}`;
    return { workflow: `${base}:w`, steps: `${base}:s`, order: `${base}:o` };
  }

  /** A `SCAN MATCH` pattern for every key of this store (glob characters of the prefix escaped). */
  get pattern(): string {
    return `${this.prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`)}*`;
  }
}

/**
 * The root of a workflow id: the id up to its first "/" (a leading "/" belongs to the root, so the hash tag is never
 * empty). Workflows with the same root share one hash slot.
 */
export function rootOf(id: string): string {
  const slash = id.indexOf("/", 1);
  return slash < 0 ? id : id.slice(0, slash);
}

/** The field (and sorted-set member) of a step: its upsert key. */
export function stepField(superstep: number, nodeName: string): string {
  return `${superstep}:${nodeName}`;
}

/** Splits a step field back into superstep and node name (the superstep never contains `:`). */
export function parseStepField(field: string): { readonly superstep: number; readonly nodeName: string } {
  const colon = field.indexOf(":");
  return { superstep: Number(field.slice(0, colon)), nodeName: field.slice(colon + 1) };
}
