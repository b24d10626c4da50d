import { setMaxListeners } from "node:events";
import { BUDGET_KEY, type BudgetField, type FunctionNode, type Graph } from "@graph/core";
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import { InvalidOptionError } from "../errors.js";
import type { GraphEvent } from "../events.js";
import { type PauseInfo, RunResult } from "../RunResult.js";
import type { Attempts } from "./attempts.js";
import { nextSpanId } from "./context.js";
import type { ChildRun, EngineHost, EventFields } from "./host.js";
import { inputProblem } from "./inputs.js";
import { Journal } from "./journal.js";
import type { Execution, RunError } from "./outcome.js";
import { computeReady, countRuns } from "./readiness.js";
import type { RunConfig } from "./runConfig.js";
import { RunState } from "./state.js";
import { runSuperstep, WAITING } from "./superstep.js";

/** What the loop does next: nothing (the run is over), wait for plain nodes, or run an Effect (then loop again). */
type Next = undefined | typeof WAITING | Effect.Effect<void, RunError>;

/**
 * One run of one graph: restores state (when there is a store), merges the caller's values, then runs supersteps
 * until nothing is ready. Supersteps of plain nodes run as plain code and promises; Effect takes over at the
 * boundaries (storage, nested graphs, interrupts, retries, timeouts).
 */
export class Engine implements EngineHost, ChildRun {
  readonly graph: Graph;
  readonly config: RunConfig;
  readonly spanId: string;
  readonly state: RunState;
  readonly #journal: Journal;
  readonly #startedAt = Date.now();
  #signal: AbortController | undefined;
  /** The run's Effect was interrupted: supersteps already under way start no more. */
  #abandoned = false;
  /** Hands the loop back to Effect after supersteps of plain nodes (set while the run waits on them). */
  #leave: ((next: Exclude<Next, typeof WAITING>) => void) | undefined;
  /** Where the plain supersteps ended when they ended before the loop waited for them (WAITING: not yet). */
  #early: Next = WAITING;

  constructor(graph: Graph, config: RunConfig) {
    this.graph = graph;
    this.config = config;
    this.spanId = nextSpanId(config.shared);
    this.state = new RunState(graph);
    this.#journal = new Journal(this);
  }

  event<T extends GraphEvent["type"]>(type: T, fields: EventFields<T>, spanId?: string): void {
    const { emitter } = this.config;
    if (!emitter.active) return;
    emitter.emit({
      type,
      runId: this.config.runId,
      workflowId: this.config.workflowId,
      spanId: spanId ?? this.spanId,
      parentSpanId: spanId === undefined ? this.config.parentSpanId : this.spanId,
      timestamp: Date.now(),
      ...fields,
    } as unknown as GraphEvent);
  }

  invoke(ex: Execution, n: FunctionNode, ctx: unknown): unknown {
    const around = this.config.emitter.aroundNode;
    if (around === undefined) {
      const call = ex.plan.call;
      return call === undefined ? n.invoke(ex.inputs, ctx as never) : call(ex.inputs, ctx as never);
    }
    const { workflowId, runId } = this.config;
    return around({ workflowId, runId, spanId: ex.spanId, nodeName: n.name }, () => n.invoke(ex.inputs, ctx as never));
  }

  runSignal(): AbortSignal {
    if (this.#signal === undefined) {
      this.#signal = new AbortController();
      // Every running node of the run may listen to this one signal (fetch, SDK clients): no listener limit.
      setMaxListeners(0, this.#signal.signal);
      this.config.control.track(this.#signal);
    }
    return this.#signal.signal;
  }

  get attempts(): Attempts {
    return this.#journal.attempts;
  }

  spawn(graph: Graph, config: RunConfig): ChildRun {
    return new Engine(graph, config);
  }

  /** Runs to the end; typed failures only for problems before the first node and store errors. */
  run(): Effect.Effect<RunResult, RunError> {
    return Effect.suspend(() => {
      this.event("RunStart", {
        graphName: this.graph.name,
        depth: this.config.depth,
        definitionHash: this.graph.definitionHash,
      });
      const journal = this.#journal;
      if (this.config.shared.store === undefined && !this.config.emitter.active) {
        // Nothing to restore, save or tell: the fewest Effect steps (an interrupted wait cancels the run).
        journal.mergeInputs();
        const problem = inputProblem(this, undefined);
        if (problem !== undefined) return Effect.fail(problem);
        this.state.markStarters(); // nothing restored: the caller's values marked their consumers
        return Effect.map(this.#loop(), () => {
          this.#releaseSignal();
          return this.#result();
        });
      }
      return journal.restore().pipe(
        Effect.flatMap(() => {
          if (this.config.time?.startAt !== undefined && journal.workflow !== undefined)
            return Effect.fail(delayedStartOfExisting(this.config.workflowId));
          // A completed workflow run again with no new values: its stored result, no claim, no write, no node.
          if (journal.settled)
            return Effect.sync(() => {
              journal.replay();
              return this.#settled();
            });
          return Effect.suspend(() => {
            const problem = inputProblem(this, journal.workflow, journal.paused);
            return problem === undefined ? journal.begin() : Effect.fail(problem);
          }).pipe(
            Effect.zipRight(
              Effect.suspend(() => {
                // A delayed start stores its inputs and due time now; its nodes run when it is woken.
                if (this.config.time?.startAt !== undefined) return Effect.void;
                this.#markAllDirty();
                return this.#loop();
              }),
            ),
            Effect.zipRight(Effect.suspend(() => this.#finish())),
          );
        }),
        Effect.onError(() => this.#abandon()),
      );
    });
  }

  /** Whether {@link runDirect} may run this run: no store to restore from or save to, nobody listening. */
  get direct(): boolean {
    return this.config.shared.store === undefined && !this.config.emitter.active;
  }

  /**
   * The run as a plain Promise, for runs that are {@link direct} (map items): Effect only for the supersteps that
   * need it. Rejects with the run's typed failure. `abandon()` cancels it between supersteps.
   */
  runDirect(): Promise<RunResult> {
    return new Promise<RunResult>((resolve, reject) => {
      this.#journal.mergeInputs();
      const problem = inputProblem(this, undefined);
      if (problem !== undefined) {
        reject(problem);
        return;
      }
      this.state.markStarters(); // nothing restored: the caller's values marked their consumers
      const step = (next: Exclude<Next, typeof WAITING>): void => {
        if (next === undefined) {
          this.#releaseSignal();
          resolve(this.#result());
          return;
        }
        Effect.runPromiseExit(next).then((exit) => {
          if (Exit.isFailure(exit)) reject(Cause.squash(exit.cause));
          else advance();
        });
      };
      const advance = (): void => {
        let next: Next;
        try {
          next = this.#steps();
        } catch (defect) {
          reject(defect);
          return;
        }
        if (next === WAITING) this.#leave = step;
        else step(next);
      };
      advance();
    });
  }

  /** Stops a {@link runDirect} run at its next superstep. */
  abandon(): void {
    this.#abandoned = true;
    this.#releaseSignal();
  }

  #markAllDirty(): void {
    this.state.all = true;
  }

  #loop(): Effect.Effect<void, RunError> {
    return Effect.suspend(() => this.#continue(this.#steps()));
  }

  #continue(next: Next): Effect.Effect<void, RunError> {
    if (next === undefined) return Effect.void;
    if (next === WAITING)
      return Effect.flatMap(
        Effect.async<Exclude<Next, typeof WAITING>>((resume) => {
          // The plain supersteps may have ended before Effect got here (the fiber can yield in between).
          if (this.#early === WAITING) this.#leave = (next) => resume(Effect.succeed(next));
          else {
            const next = this.#early;
            this.#early = WAITING;
            resume(Effect.succeed(next));
          }
          return this.#cancel;
        }),
        (after) => this.#continue(after),
      );
    return next.pipe(
      Effect.zipRight(Effect.suspend(() => this.#pressure() ?? Effect.void)),
      Effect.zipRight(this.#loop()),
    );
  }

  /** Called when a superstep of plain nodes was applied: runs on, and hands back to Effect when it must. */
  readonly #resume = (): void => {
    const wait = this.config.emitter.active ? this.config.emitter.pressure() : undefined;
    if (wait !== undefined) {
      wait.then(this.#resume2);
      return;
    }
    this.#resume2();
  };

  readonly #resume2 = (): void => {
    let next: Next;
    try {
      next = this.#steps();
    } catch (defect) {
      next = Effect.die(defect);
    }
    if (next === WAITING) return;
    const leave = this.#leave;
    this.#leave = undefined;
    if (leave === undefined) this.#early = next;
    else leave(next);
  };

  /** The run's fiber was interrupted while plain nodes ran: start no more supersteps. */
  readonly #cancel = Effect.sync(() => {
    this.#abandoned = true;
    this.#releaseSignal();
  });

  #pressure(): Effect.Effect<void> | undefined {
    const wait = this.config.emitter.active ? this.config.emitter.pressure() : undefined;
    return wait === undefined ? undefined : Effect.promise(() => wait);
  }

  /** Runs supersteps inline until one has to wait (WAITING or an Effect) or nothing is ready. */
  #steps(): Next {
    const { state, config } = this;
    while (true) {
      if (state.pause !== undefined || state.failure !== undefined || this.#abandoned) return undefined;
      if (config.control.stopRequested) {
        state.stopped = true;
        if (!config.completeOnStop) return undefined;
      }
      const ready = computeReady(state);
      if (ready.length === 0) return undefined;
      // Over budget with work left: pause before it (a run whose last step crossed it just completes).
      if (config.meter.limit !== undefined) {
        const over = config.meter.exceeded();
        if (over !== undefined) {
          this.#pauseForBudget(over);
          return undefined;
        }
      }
      const runaway = countRuns(state, ready, config.maxIterations);
      if (runaway !== undefined) return Effect.fail(runaway);
      state.superstep++;
      if (config.emitter.active)
        this.event("SuperstepStart", { superstep: state.superstep, nodes: ready.map((n) => n.name) });
      const pending = runSuperstep(this, this.#journal, ready, this.#resume);
      if (pending !== undefined) return pending;
      const wait = config.emitter.active ? config.emitter.pressure() : undefined;
      if (wait !== undefined) {
        wait.then(this.#resume2);
        return WAITING;
      }
    }
  }

  /**
   * The tree crossed its budget: pause before the next superstep. A root names the node whose step crossed it (the
   * meter knows it by workflow path); a child's pause reaches the root through its GraphNode, which renames it.
   */
  #pauseForBudget(over: BudgetField[]): void {
    const { config, state } = this;
    const nodeName = this.#crossedHere() ?? "";
    const value = config.meter.pauseValue(over);
    state.pause = { reason: "budget", nodeName, value, responseKey: BUDGET_KEY };
    this.event("Paused", { reason: "budget", nodeName, value, responseKey: BUDGET_KEY });
  }

  /** The node whose step crossed the budget, as a path from this run (undefined: it was not under this run). */
  #crossedHere(): string | undefined {
    const prefix = `${this.config.workflowId}/`;
    const crossed = this.config.meter.crossedBy;
    return crossed?.startsWith(prefix) === true ? crossed.slice(prefix.length) : undefined;
  }

  #result(stored?: PauseInfo): RunResult {
    const { state, config } = this;
    const status = config.time?.startAt !== undefined ? "paused" : state.status(config.control.stopRequested);
    let pause = status === "paused" ? (stored ?? state.pause) : undefined;
    // A root's budget pause names the node that crossed it, wherever in the tree that was.
    const crossed = pause?.reason === "budget" && !config.isChild ? this.#crossedHere() : undefined;
    if (crossed !== undefined) pause = { ...pause!, nodeName: crossed };
    return new RunResult({
      status,
      values: state.resultValues(),
      workflowId: config.workflowId,
      runId: config.runId,
      pause,
      error: status === "failed" ? state.failure : undefined,
      // A root reports the whole tree (the meter); a child what its own steps spent (its parent's step stores it).
      usage: config.isChild ? state.usage : config.meter.spent,
    });
  }

  /** The stored result of a completed workflow (see `Journal.settled`). */
  #settled(): RunResult {
    this.#releaseSignal();
    const result = this.#result();
    this.event("RunEnd", { status: result.status, durationMs: Date.now() - this.#startedAt });
    return result;
  }

  #finish(): Effect.Effect<RunResult, RunError> {
    this.#releaseSignal();
    const written = this.#result();
    return this.#journal.finish(written).pipe(
      Effect.map(() => {
        // A stored pause is named by its visit too (known once written): an answer can say which pause it answers.
        const visit = this.#journal.visit;
        const result =
          visit === undefined || written.pause === undefined ? written : this.#result({ ...written.pause, visit });
        this.event("RunEnd", {
          status: result.status,
          durationMs: Date.now() - this.#startedAt,
          ...(result.error === undefined ? {} : { error: result.error }),
        });
        return result;
      }),
    );
  }

  /** On a typed failure or interruption: no more supersteps, then the journal gives up the workflow. */
  #abandon(): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.#abandoned = true;
      this.#releaseSignal();
      this.event("RunEnd", { status: "failed", durationMs: Date.now() - this.#startedAt });
      return this.#journal.abandon();
    });
  }

  #releaseSignal(): void {
    if (this.#signal !== undefined) this.config.control.untrack(this.#signal);
  }
}

/** A delayed start (`startAt` / `delay`) names a workflow that exists: it would never be created paused. */
function delayedStartOfExisting(id: string): InvalidOptionError {
  return new InvalidOptionError(
    `runner.run(): workflow '${id}' already exists, so it can't be given a delayed start (startAt / delay).\n  How to fix: use a new workflowId, or run the existing workflow without startAt / delay.`,
    "startAt",
  );
}
