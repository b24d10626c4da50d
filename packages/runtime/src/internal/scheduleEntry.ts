import type { Graph } from "@graph/core";
import type { Clock } from "../Clock.js";
import type { RunResult } from "../RunResult.js";
import type { ScheduleEvent, ScheduleHandle, ScheduleOptions, ScheduleOverlap } from "../schedule.js";
import type { CronSpec } from "./cron.js";

/** What a schedule needs from its runner. */
export interface ScheduleHost {
  readonly clock: Clock;
  /** Runs one firing's workflow. */
  run(graph: Graph, workflowId: string, values: Readonly<Record<string, unknown>>): Promise<RunResult>;
  /** Creates the firing's workflow if it does not exist: true when this call created it (the firing is ours). */
  claim(graph: Graph, workflowId: string): Promise<boolean>;
  /** Whether a firing's workflow exists. */
  exists(workflowId: string): Promise<boolean>;
  /** Whether a firing's workflow has ended (or never existed): not running, not paused. */
  finished(workflowId: string): Promise<boolean>;
  /** How often (ms) a queued firing looks whether another process's previous firing has ended. */
  readonly pollMs: number;
  readonly hasStore: boolean;
}

const DAY_MS = 86_400_000;
/** How many past occurrences catch-up reads at most (one store read each). */
const LOOK_BACK = 100;

/**
 * One schedule of one runner. Each occurrence is decided in order (a promise chain): overlap check, then the
 * create-if-absent claim of its workflow, whose winner — in this process or any other on the store — runs it.
 */
export class ScheduleEntry implements ScheduleHandle {
  readonly id: string;
  readonly cron: string;
  readonly timezone: string;
  readonly overlap: ScheduleOverlap;
  #paused: boolean;
  #gone = false;
  #closed = false;
  #cancelTimer: (() => void) | undefined;
  #next: number | undefined;
  /** The last firing started (here or elsewhere): the one a later firing's overlap rule looks at. */
  #last: string | undefined;
  #decisions: Promise<void> = Promise.resolve();
  /** Firings of this runner, queued or running. */
  readonly #local = new Map<string, Promise<void>>();
  /** Wakes the queued firings' store polls on close (they then don't run). */
  readonly #pollCancels = new Set<() => void>();

  // Private: the object is the user's handle, which shows only the ScheduleHandle members.
  readonly #spec: CronSpec;
  readonly #graph: Graph;
  readonly #options: ScheduleOptions;
  readonly #host: ScheduleHost;
  readonly #onDelete: (entry: ScheduleEntry) => void;

  constructor(
    spec: CronSpec,
    graph: Graph,
    options: ScheduleOptions,
    host: ScheduleHost,
    onDelete: (entry: ScheduleEntry) => void,
  ) {
    this.#spec = spec;
    this.#graph = graph;
    this.#options = options;
    this.#host = host;
    this.#onDelete = onDelete;
    this.id = spec.id;
    this.cron = spec.cron;
    this.timezone = spec.timezone;
    this.overlap = options.overlap ?? "skip";
    this.#paused = options.paused === true;
  }

  get paused(): boolean {
    return this.#paused || this.#gone;
  }

  /** Arms the first timer and, with a store, looks for a missed occurrence to catch up. */
  start(): void {
    if (this.paused) return;
    const now = this.#host.clock.now();
    const recent = this.#spec.previousBefore(now, LOOK_BACK);
    if (recent[0] !== undefined) this.#last = this.#spec.firingId(recent[0]);
    if (this.#host.hasStore && (this.#options.catchUp ?? "latest") === "latest") {
      const window = this.#options.catchUpWindowMs ?? DAY_MS;
      const inWindow = recent.filter((at) => now - at <= window);
      if (inWindow.length > 0) this.#decisions = this.#decisions.then(() => this.#catchUp(inWindow));
    }
    this.#arm(now);
  }

  /**
   * `recent`: the occurrences in the look-back, the most recent first. The latest one runs (late) when it never ran
   * but an earlier one did: the schedule was up before and missed it. No earlier firing in the look-back: a new
   * schedule (or one down longer than the look-back), which starts with its next occurrence.
   */
  async #catchUp(recent: readonly number[]): Promise<void> {
    const [latest, ...earlier] = recent;
    if (latest === undefined) return;
    try {
      if (await this.#host.exists(this.#spec.firingId(latest))) return;
      for (const at of earlier) {
        if (!(await this.#host.exists(this.#spec.firingId(at)))) continue;
        await this.#decideOne(latest, this.#spec.firingId(at), true);
        return;
      }
    } catch (error) {
      const workflowId = this.#spec.firingId(latest);
      this.#emit({ type: "ScheduleRunFailed", scheduleId: this.id, workflowId, dueAt: new Date(latest), error });
    }
  }

  nextFiring(): Date | undefined {
    return this.paused || this.#next === undefined ? undefined : new Date(this.#next);
  }

  pause(): void {
    this.#paused = true;
    this.#disarm();
  }

  resume(): void {
    if (this.#gone || !this.#paused) return;
    this.#paused = false;
    this.#arm(this.#host.clock.now());
  }

  delete(): void {
    if (this.#gone) return;
    this.#gone = true;
    this.#disarm();
    this.#onDelete(this);
  }

  async settled(): Promise<void> {
    for (;;) {
      const decided = this.#decisions;
      await decided;
      await Promise.all(this.#local.values());
      if (decided === this.#decisions && this.#local.size === 0) return;
    }
  }

  /** The runner closes: no timer, no queued firing starts. */
  close(): void {
    this.#closed = true;
    this.#gone = true;
    this.#disarm();
    for (const cancel of this.#pollCancels) cancel();
  }

  #disarm(): void {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    this.#next = undefined;
  }

  #arm(from: number): void {
    const next = this.#spec.nextAtOrAfter(from);
    this.#next = next;
    if (next === undefined) return;
    this.#cancelTimer = this.#host.clock.setTimer(next, () => {
      this.#cancelTimer = undefined;
      if (this.paused) return;
      // Re-armed before anything async: the next occurrence's timer never waits for this firing.
      this.#arm(next + 1);
      this.#decide(next, this.#last, false);
    });
  }

  #decide(due: number, previous: string | undefined, catchUp: boolean): void {
    this.#decisions = this.#decisions.then(() => this.#decideOne(due, previous, catchUp));
  }

  async #decideOne(due: number, previous: string | undefined, catchUp: boolean): Promise<void> {
    const workflowId = this.#spec.firingId(due);
    const dueAt = new Date(due);
    try {
      if (this.#closed) return;
      if (this.overlap === "skip" && previous !== undefined && !(await this.#ended(previous))) {
        this.#emit({
          type: "ScheduleSkipped",
          scheduleId: this.id,
          workflowId,
          dueAt,
          reason: "overlap",
          previousWorkflowId: previous,
        });
        return;
      }
      const ours = await this.#host.claim(this.#graph, workflowId);
      this.#last = workflowId;
      if (!ours) {
        this.#emit({ type: "ScheduleSkipped", scheduleId: this.id, workflowId, dueAt, reason: "taken" });
        return;
      }
      const wait = this.overlap === "queue" && previous !== undefined ? previous : undefined;
      const firing = this.#fire(workflowId, due, catchUp, wait).finally(() => this.#local.delete(workflowId));
      this.#local.set(workflowId, firing);
    } catch (error) {
      this.#emit({ type: "ScheduleRunFailed", scheduleId: this.id, workflowId, dueAt, error });
    }
  }

  async #ended(workflowId: string): Promise<boolean> {
    if (this.#local.has(workflowId)) return false;
    return this.#host.hasStore ? this.#host.finished(workflowId) : true;
  }

  async #fire(workflowId: string, due: number, catchUp: boolean, after: string | undefined): Promise<void> {
    const dueAt = new Date(due);
    try {
      const queued = after !== undefined && !(await this.#ended(after));
      if (queued && !(await this.#waitEnded(after))) return;
      const firedAt = this.#host.clock.now();
      this.#emit({
        type: "ScheduleFired",
        scheduleId: this.id,
        workflowId,
        dueAt,
        firedAt: new Date(firedAt),
        lateMs: firedAt - due,
        catchUp,
        queued,
      });
      const result = await this.#host.run(this.#graph, workflowId, this.#options.values ?? {});
      this.#emit({ type: "ScheduleRunEnded", scheduleId: this.id, workflowId, dueAt, status: result.status });
    } catch (error) {
      this.#emit({ type: "ScheduleRunFailed", scheduleId: this.id, workflowId, dueAt, error });
    }
  }

  /** Waits for the previous firing to end: at once when it runs here, else by polling the store. False: closed. */
  async #waitEnded(workflowId: string): Promise<boolean> {
    const local = this.#local.get(workflowId);
    if (local !== undefined) await local;
    while (!this.#closed && !(await this.#ended(workflowId))) {
      await new Promise<void>((resolve) => {
        const cancel = (): void => {
          cancelTimer();
          this.#pollCancels.delete(cancel);
          resolve();
        };
        const cancelTimer = this.#host.clock.setTimer(this.#host.clock.now() + this.#host.pollMs, cancel);
        this.#pollCancels.add(cancel);
      });
    }
    return !this.#closed;
  }

  #emit(event: ScheduleEvent): void {
    try {
      this.#options.onEvent?.(event);
    } catch {
      // A listener's failure must not stop the schedule.
    }
  }
}
