import { type Checkpointer, type EventWait, WorkflowConflictError } from "@graph/checkpoint";
import type { Graph, InterruptNode } from "@graph/core";
import type { Clock } from "../Clock.js";
import { InvalidOptionError, UnexpectedAnswerError } from "../errors.js";
import type { RunOptions } from "../options.js";
import type { RunResult } from "../RunResult.js";
import type { SendOptions, SendResult, WakeResult } from "../time.js";
import { keepEvent, takeKeptEvent } from "./eventBuffer.js";
import { eventKey } from "./eventKey.js";
import type { RunConfig } from "./runConfig.js";
import { bufferOf, describe } from "./sendOptions.js";

/** What the time keeper needs from its runner: the store set up, and a run with its time settings. */
export interface TimeHost {
  ready(): Promise<void>;
  run(graph: Graph, options: RunOptions, time: RunConfig["time"]): Promise<RunResult>;
}

/** How many due workflows one firing takes from the store (more are taken by the next firing, at once). */
const BATCH = 100;

/** The re-read of `nextDue` without pushes: the bound on how late another process's due time is found. */
const POLL_MS = 1_000;
/** The re-read with a store that pushes due times (`watchDue`): it only covers a notification that was lost. */
const POLL_WITH_PUSH_MS = 5_000;

/**
 * The runner's side of time: the graphs it may resume on its own (by definition hash), one timer armed for the
 * earliest due time in the store, `wake` (resume one due workflow, fenced) and `send` (resume the workflows waiting
 * for an event). The timer is only a reminder: the due times are in the store, every process on it arms its own,
 * and whichever claims a due workflow first resumes it; the others find it resumed (`already-woken`) or running
 * (`busy`) and write nothing.
 */
export class TimeKeeper {
  readonly clock: Clock;
  readonly #checkpointer: Checkpointer | undefined;
  readonly #host: TimeHost;
  readonly #enabled: boolean;
  /** After a firing that left something due it could not resume (busy, unknown graph): look again this much later. */
  readonly #retryMs: number;
  /** How long a delivery waits for a workflow another delivery holds (the lease TTL) before reporting it busy. */
  readonly #busyWaitMs: number;
  readonly #graphs = new Map<string, Graph>();
  #started = false;
  #closed = false;
  #armedAt: number | undefined;
  #cancel: (() => void) | undefined;
  #firing: Promise<void> | undefined;
  /** The `duePollIntervalMs` option (undefined: the default, which depends on whether the store pushes). */
  readonly #pollMs: number | undefined;
  #pollTimer: ReturnType<typeof setTimeout> | undefined;
  /** Stops the store's `watchDue` subscription once it listens (undefined: none, not yet, or it failed). */
  #unwatch: (() => Promise<void>) | undefined;
  #pushes = false;

  constructor(
    checkpointer: Checkpointer | undefined,
    clock: Clock,
    options: {
      readonly enabled: boolean;
      readonly retryMs: number;
      readonly busyWaitMs: number;
      readonly pollMs?: number | undefined;
    },
    host: TimeHost,
  ) {
    this.#checkpointer = checkpointer;
    this.clock = clock;
    this.#enabled = options.enabled;
    this.#retryMs = options.retryMs;
    this.#busyWaitMs = options.busyWaitMs;
    this.#pollMs = options.pollMs;
    this.#host = host;
  }

  /** A graph whose workflows this runner may resume; the first one known starts the scheduler. */
  register(graph: Graph): void {
    if (!this.#graphs.has(graph.definitionHash)) this.#graphs.set(graph.definitionHash, graph);
    this.#start();
  }

  /** A run stored a due time: arm for it when it is earlier than what the timer waits for. */
  noteDue(at: number): void {
    if (!this.#started || this.#closed) return;
    if (this.#armedAt === undefined || at < this.#armedAt) this.#arm(at);
  }

  /** Disarms the timer and waits for a firing in progress (its runs are stopped by the runner's close). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#disarm();
    if (this.#pollTimer !== undefined) clearTimeout(this.#pollTimer);
    this.#pollTimer = undefined;
    // A subscription still connecting is stopped when it resolves (see #watch): close never waits for a store.
    const unwatch = this.#unwatch;
    this.#unwatch = undefined;
    await unwatch?.().catch(() => undefined);
    await this.#firing;
  }

  /**
   * Arms from the store: catch-up of what came due while no runner was up, then the next due time. From then on,
   * due times other processes store reach this runner too: pushed by the store when it can (`watchDue`), and
   * found by a re-read of `nextDue` every `duePollIntervalMs` (the fallback, and the only way for SQLite).
   */
  #start(): void {
    if (this.#started || !this.#enabled || this.#closed || this.#checkpointer?.nextDue === undefined) return;
    this.#started = true;
    this.#arm(this.clock.now());
    this.#watch(this.#checkpointer);
    this.#schedulePoll();
  }

  #watch(cp: Checkpointer): void {
    if (typeof cp.watchDue !== "function") return;
    let pending: Promise<() => Promise<void>>;
    try {
      pending = cp.watchDue((at) => this.noteDue(at.getTime()));
    } catch {
      return;
    }
    pending.then(
      (stop) => {
        if (this.#closed) return void stop().catch(() => undefined);
        this.#pushes = true;
        this.#unwatch = stop;
      },
      // Not listening (the store refused or is down): the re-read alone finds other processes' due times.
      () => undefined,
    );
  }

  #schedulePoll(): void {
    if (this.#closed) return;
    const every = this.#pollMs ?? (this.#pushes ? POLL_WITH_PUSH_MS : POLL_MS);
    // Wall time, not the runner's clock: this bounds real lateness, and a test clock's pending timers stay its own.
    const timer = setTimeout(() => void this.#poll(), every);
    timer.unref?.();
    this.#pollTimer = timer;
  }

  /** Re-reads the earliest due time: one written by another process arms the timer like one of this runner's own. */
  async #poll(): Promise<void> {
    this.#pollTimer = undefined;
    try {
      await this.#host.ready();
      const next = this.#closed ? undefined : await this.#checkpointer!.nextDue?.();
      if (next !== undefined) this.noteDue(next.getTime());
    } catch {
      // The store is briefly unreachable: the due times are still there; the next re-read finds them.
    } finally {
      this.#schedulePoll();
    }
  }

  #arm(at: number): void {
    if (this.#closed) return;
    this.#disarm();
    this.#armedAt = at;
    this.#cancel = this.clock.setTimer(at, () => {
      this.#armedAt = undefined;
      this.#cancel = undefined;
      // One firing at a time: a timer that comes due during one runs after it.
      const firing: Promise<void> = (this.#firing ?? Promise.resolve()).then(() => this.#fire());
      this.#firing = firing;
      void firing.finally(() => {
        if (this.#firing === firing) this.#firing = undefined;
      });
    });
  }

  #disarm(): void {
    this.#cancel?.();
    this.#cancel = undefined;
    this.#armedAt = undefined;
  }

  /** Resumes every workflow due now (one batch), then arms for what is due next. */
  async #fire(): Promise<void> {
    if (this.#closed) return;
    const cp = this.#checkpointer!;
    let next: number | undefined;
    try {
      await this.#host.ready();
      const due = (await cp.listDue?.({ before: new Date(this.clock.now()), limit: BATCH })) ?? [];
      const woken = await Promise.all(due.map((d) => this.wake(d.id).catch(() => undefined)));
      const stuck = woken.some(
        (w) => w === undefined || (!w.woken && (w.reason === "busy" || w.reason === "unknown-graph")),
      );
      const after = (await cp.nextDue?.())?.getTime();
      const now = this.clock.now();
      // Due now (it came due during this firing, or the batch was full): take it at once. Something due that
      // nobody here could resume (running elsewhere, an unknown graph): look again a little later, not in a loop.
      if (after !== undefined) next = after > now ? after : stuck ? now + this.#retryMs : now;
    } catch {
      // The store is briefly unreachable: the due times are still there; look again later.
      next = this.clock.now() + this.#retryMs;
    }
    if (next !== undefined && (this.#armedAt === undefined || next < this.#armedAt)) this.#arm(next);
  }

  /** See `Runner.wake`. */
  async wake(workflowId: unknown): Promise<WakeResult> {
    if (typeof workflowId !== "string" || workflowId === "")
      throw new InvalidOptionError(
        `runner.wake(): the workflow id must be a non-empty string, got ${String(workflowId)}.\n  How to fix: pass the id of a workflow with a due time (a sleep, a timed pause or a delayed start).`,
        "workflowId",
      );
    const cp = this.#requireStore("wake");
    await this.#host.ready();
    const record = await cp.getWorkflow(workflowId);
    if (record === undefined) return { woken: false, workflowId, reason: "not-found" };
    const dueAt = record.wakeAt;
    if (dueAt === undefined || (record.status !== "paused" && record.status !== "running"))
      return { woken: false, workflowId, reason: "not-due" };
    const firedAt = this.clock.now();
    if (dueAt.getTime() > firedAt) return { woken: false, workflowId, reason: "not-due", dueAt };
    const graph = this.#graphs.get(record.graphHash);
    if (graph === undefined) return { woken: false, workflowId, reason: "unknown-graph", dueAt };
    try {
      const result = await this.#host.run(
        graph,
        { workflowId, errorHandling: "continue", recover: true },
        { wake: dueAt.getTime() },
      );
      return { woken: true, workflowId, result, dueAt, lateMs: Math.max(0, firedAt - dueAt.getTime()) };
    } catch (error) {
      if (!WorkflowConflictError.is(error)) throw error;
      return { woken: false, workflowId, reason: error.reason === "lease-held" ? "busy" : "already-woken", dueAt };
    }
  }

  /** See `Runner.send`. */
  async send(event: unknown, payload: unknown, options?: SendOptions): Promise<SendResult> {
    if (typeof event !== "string" || event.trim() === "" || new TextEncoder().encode(event).length > 256)
      throw new InvalidOptionError(
        `runner.send(): the event name must be a non-empty string of at most 256 bytes, got ${describe(event)}.\n  How to fix: pass the name a waitFor node waits for, e.g. runner.send("ticket.replied", { ticketId: "T-1", text: "…" }).`,
        "event",
      );
    if (typeof payload !== "object" || payload === null || Array.isArray(payload))
      throw new InvalidOptionError(
        `runner.send("${event}"): the payload must be an object (its fields are matched against the waiting workflows), got ${describe(payload)}.\n  How to fix: runner.send("${event}", { ticketId: "T-1", … }).`,
        "payload",
      );
    const bufferMs = bufferOf(event, options);
    const cp = this.#requireStore("send");
    await this.#host.ready();
    const fields = payload as Record<string, unknown>;
    const delivered: Array<SendResult["delivered"][number]> = [];
    const skipped: Array<SendResult["skipped"][number]> = [];
    const tried = new Set<string>();
    for (const keys of this.#fieldSets(event)) {
      if (!keys.every((k) => k in fields)) continue;
      const key = eventKey(Object.fromEntries(keys.map((k) => [k, fields[k]])));
      // Each resumed workflow stops waiting, so the next page holds only workflows not tried yet.
      for (;;) {
        const ids = ((await cp.listWaiting?.({ event, key }, { limit: BATCH })) ?? []).filter((id) => !tried.has(id));
        if (ids.length === 0) break;
        for (const id of ids) tried.add(id);
        await Promise.all(
          ids.map(async (workflowId) => {
            const outcome = await this.#deliver(cp, workflowId, event, keys, payload as Record<string, unknown>);
            if ("status" in outcome) delivered.push({ workflowId, status: outcome.status });
            else skipped.push({ workflowId, reason: outcome.reason });
          }),
        );
      }
    }
    const byId = (a: { workflowId: string }, b: { workflowId: string }) => (a.workflowId < b.workflowId ? -1 : 1);
    const sent = { delivered: delivered.sort(byId), skipped: skipped.sort(byId) };
    if (bufferMs === undefined || delivered.length > 0 || skipped.length > 0) return sent;
    // Nobody waited: keep it for the first matching waitFor of the graphs this runner knows.
    const now = this.clock.now();
    let kept = false;
    for (const keys of this.#fieldSets(event)) {
      if (!keys.every((k) => k in fields)) continue;
      const key = eventKey(Object.fromEntries(keys.map((k) => [k, fields[k]])));
      await keepEvent(cp, { event, key, keys, payload: fields, expiresAt: now + bufferMs }, now);
      kept = true;
    }
    return kept ? { ...sent, bufferedUntil: new Date(now + bufferMs) } : sent;
  }

  /**
   * A root run just paused in a `waitFor` (stored, lease released): if an event was kept for it, resume it with
   * that event (right after this run has ended here), and use the event up.
   */
  noteWaiting(workflowId: string, wait: EventWait): void {
    const cp = this.#checkpointer;
    // Without the in-process scheduler (a job queue's worker) a run started here would miss its wake-up job if it
    // paused again with a due time: kept events are used by runners that schedule their own due times.
    if (cp === undefined || this.#closed || !this.#enabled) return;
    const timer = setTimeout(() => {
      this.#takeKept(cp, workflowId, wait).catch(() => {
        // A store error here leaves the event kept (not used): a later waitFor or its expiry settles it.
      });
    }, 0);
    timer.unref?.();
  }

  async #takeKept(cp: Checkpointer, workflowId: string, wait: EventWait): Promise<void> {
    const taken = await takeKeptEvent(cp, wait, this.clock.now());
    if (taken === undefined) return;
    for (let attempt = 0; attempt < 100 && !this.#closed; attempt++) {
      const outcome = await this.#deliver(cp, workflowId, taken.event, taken.keys, { ...taken.payload });
      if ("status" in outcome || outcome.reason !== "busy") {
        // Resumed, or it is no longer waiting for it (answered, timed out, another graph): either way, used here
        // only when it was delivered.
        await ("status" in outcome ? taken.used() : taken.giveBack());
        return;
      }
      // Still finishing the run that paused it in this process: try again in a moment.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await taken.giveBack();
  }

  async #deliver(
    cp: Checkpointer,
    workflowId: string,
    event: string,
    keys: readonly string[],
    payload: Record<string, unknown>,
  ): Promise<{ status: RunResult["status"] } | { reason: SendResult["skipped"][number]["reason"] }> {
    const record = await cp.getWorkflow(workflowId);
    const graph = record === undefined ? undefined : this.#graphs.get(record.graphHash);
    const node = graph === undefined ? undefined : waitForNode(graph, event, keys);
    if (node === undefined) return { reason: "unknown-graph" };
    // The event answers the wait it was listed for, named by its visit: of several deliveries racing for it the
    // store's claim takes exactly one, and one that comes after it settled is refused, never a new turn.
    const pause = record!.pause;
    if (record!.status !== "paused" || pause === undefined || record!.waitingFor?.event !== event)
      return { reason: "already-resumed" };
    const answering = { nodeName: pause.nodeName, visit: record!.lastSuperstep };
    const deadline = Date.now() + this.#busyWaitMs;
    for (let delay = 25; ; delay = Math.min(delay * 2, 1_000)) {
      try {
        const options = { workflowId, values: { [node.responseKey]: payload }, errorHandling: "continue", answering };
        const result = await this.#host.run(graph!, options as RunOptions, undefined);
        return { status: result.status };
      } catch (error) {
        // Held (another delivery, here or elsewhere, between its claim and its end): look again shortly, for at most
        // a lease. Once that one settled the wait the claim refuses this one, so the answer is "already-resumed".
        if (WorkflowConflictError.is(error) && error.reason === "lease-held") {
          if (this.#closed || Date.now() + delay >= deadline) return { reason: "busy" };
          await new Promise((resolve) => setTimeout(resolve, delay));
          continue;
        }
        if (WorkflowConflictError.is(error)) return { reason: "already-resumed" };
        // It stopped waiting between the lookup and the resume (answered, timed out, another delivery).
        if (UnexpectedAnswerError.is(error)) return { reason: "already-resumed" };
        throw error;
      }
    }
  }

  /** The payload field sets the known graphs' `waitFor` nodes match this event on (each a sorted list). */
  #fieldSets(event: string): string[][] {
    const sets = new Map<string, string[]>();
    for (const graph of this.#graphs.values())
      for (const n of graph.interruptNodes) {
        if (n.timing?.event !== event || n.eventMatch === undefined) continue;
        const keys = Object.keys(n.eventMatch).sort();
        sets.set(JSON.stringify(keys), keys);
      }
    return [...sets.values()];
  }

  #requireStore(method: string): Checkpointer {
    const cp = this.#checkpointer;
    if (cp === undefined)
      throw new InvalidOptionError(
        `runner.${method}() needs a checkpointer: due times and waiting workflows are found in the store.\n  How to fix: new Runner({ checkpointer: new MemoryCheckpointer() }) (or SQLite, PostgreSQL, Redis).`,
        "checkpointer",
      );
    if (cp.listDue === undefined || cp.listWaiting === undefined || cp.nextDue === undefined)
      throw new InvalidOptionError(
        `runner.${method}(): this checkpointer does not keep due times (it has no listDue / nextDue / listWaiting).\n  How to fix: update the checkpointer package to a version that implements the time contract.`,
        "checkpointer",
      );
    return cp;
  }
}

/** The `waitFor` of `graph` (top level) that waits for `event` matching on exactly these payload fields. */
function waitForNode(graph: Graph, event: string, keys: readonly string[]): InterruptNode | undefined {
  const wanted = JSON.stringify(keys);
  return graph.interruptNodes.find(
    (n) =>
      n.timing?.event === event &&
      n.eventMatch !== undefined &&
      JSON.stringify(Object.keys(n.eventMatch).sort()) === wanted,
  );
}
