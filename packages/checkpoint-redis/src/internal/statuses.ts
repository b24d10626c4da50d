/**
 * The status and graph indexes on Redis: one sorted set per status and one per graph name, scored by creation time,
 * so a listing filtered by either reads one range of one set and one record per candidate. A graph never changes,
 * so its set is written with the other listing entries. A status does, by a script in the workflow's slot that the
 * index slot's sets cannot join on Redis Cluster, so the status sets follow the record by a protocol that can lag
 * but never lose a workflow:
 *
 * 1. before a write that may set a status, `begin` counts the write in flight and adds the workflow to that
 *    status's set: a set holds every workflow whose record has its status, and maybe some that no longer do;
 * 2. after the write, `end` stops counting it and adds the workflow to the set of the status it stored (a
 *    creation's entry may not have existed when the write began);
 * 3. a reader takes a set's entries as candidates, keeps those whose record has the status, and drops the others
 *    — only while no status write of that workflow is in flight and none began since it read the sequence.
 *
 * A process that dies between 1 and 2 leaves an entry that readers skip (one extra read), never a missing one.
 */
import { WORKFLOW_STATUSES } from "@graph/checkpoint/adapter";
import type { IndexContext } from "./indexes.js";
import type { WorkflowHash } from "./records.js";

/** The status-index half of the store. */
export class StatusIndex {
  readonly #context: IndexContext;

  constructor(context: IndexContext) {
    this.#context = context;
  }

  /**
   * Runs a record write between the steps of the protocol. `status`: what the write may set (undefined: it cannot
   * change the status). `stored`: the record after the write, from its reply.
   */
  async around<A>(id: string, status: string | undefined, run: () => Promise<A>, stored: (reply: A) => WorkflowHash) {
    if (status === undefined) return run();
    const { keys, scripts } = this.#context;
    await scripts.graphStatusBegin(
      keys.index.all,
      keys.index.statusPending,
      keys.index.statusSequence,
      keys.status(status),
      id,
    );
    let reply: A;
    try {
      reply = await run();
    } catch (error) {
      // The refused write stored nothing: only the count goes (the entry added is one readers drop).
      await this.end(id, undefined).catch(() => undefined);
      throw error;
    }
    await this.end(id, stored(reply));
    return reply;
  }

  /** Step 2: the write began with `begin` ended; `hash` is the record it left (undefined: unknown or refused). */
  async end(id: string, hash: WorkflowHash | undefined): Promise<void> {
    const { keys, scripts } = this.#context;
    const status = hash?.["st"];
    await scripts.graphStatusEnd(
      keys.index.statusPending,
      status === undefined ? keys.index.statusPending : keys.status(status),
      id,
      "1",
      hash?.["ca"] ?? "",
    );
  }

  /** The status-write sequence of some workflows, read before their records (what `drop` compares). */
  async sequences(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const values = await this.#context.client.hmget(this.#context.keys.index.statusSequence, ...ids);
    return values.map((value) => value ?? "");
  }

  /** Step 3: drops entries of a status set whose records were read with another status. */
  async drop(status: string, stale: readonly { readonly id: string; readonly sequence: string }[]): Promise<void> {
    if (stale.length === 0) return;
    const { keys, scripts } = this.#context;
    await scripts.graphStatusDrop(
      keys.index.statusPending,
      keys.index.statusSequence,
      keys.status(status),
      ...stale.flatMap((entry) => [entry.id, entry.sequence]),
    );
  }

  /** Removes deleted workflows from every status set and from their graphs' sets (`graphs`: their graph names). */
  async remove(ids: readonly string[], graphs: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const { keys, scripts } = this.#context;
    const sets = [
      keys.index.statusPending,
      keys.index.statusSequence,
      ...WORKFLOW_STATUSES.map((status) => keys.status(status)),
      ...new Set(graphs.map((graph) => keys.graph(graph))),
    ];
    await scripts.graphStatusRemove(sets.length, ...sets, ...ids);
  }
}
