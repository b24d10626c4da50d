import { INPUT_STEP, type StepAttempt, type StepRecord, type StepStatus } from "@graph/checkpoint";
import * as Effect from "effect/Effect";
import type { EngineHost } from "./host.js";
import type { Execution, RunError } from "./outcome.js";

// Durable retry attempts. A node with `retry` stores a `running` step before each attempt (its number, and how many
// times a crash made an attempt of this step run again); its result replaces that record (same superstep and node).
// On resume the last record of each node tells where its step left off: a `running` one means the process died
// during that attempt, a `stopped` one that a stop cut it off. The step continues only when the node runs on the same
// input versions (the same step, as `ctx.idempotencyKey` sees it); new inputs start a new step with a fresh budget.

/** Where a node's step left off in the stored history. */
interface LeftOff {
  readonly versions: string;
  readonly status: StepStatus;
  readonly attempt: StepAttempt;
}

/** Writes a step under the run's lease (queued or awaited, as the durability says); undefined when done inline. */
export type SaveStep = (step: StepRecord) => Effect.Effect<void, RunError> | undefined;

/** The first attempt of a step that has no history. */
const FIRST: StepAttempt = { number: 1, repeats: 0 };

/** How many times an attempt a crash cut short is run again under its own number before it counts as failed. */
const REPEATS = 1;

/** A key of input versions that does not depend on the order of their names (stored records are JSON). */
function versionsKey(versions: Readonly<Record<string, number>>): string {
  const names = Object.keys(versions).sort();
  let key = "";
  for (const name of names) key += `${JSON.stringify(name)}:${versions[name]},`;
  return key;
}

/** One run's attempts of its nodes with `retry`: what the stored history says, and the record of each start. */
export class Attempts {
  readonly #save: SaveStep | undefined;
  #leftOff: Map<string, LeftOff> | undefined;

  /** `save`: how the run writes a step (undefined without a store: attempts are then counted in memory only). */
  constructor(save: SaveStep | undefined) {
    this.#save = save;
  }

  /** Reads where each node's last step left off, from the workflow's own history (not a fork's copy). */
  restore(steps: readonly StepRecord[]): void {
    const last = new Map<string, StepRecord>();
    for (const s of steps) {
      if (s.nodeName === INPUT_STEP) continue;
      const seen = last.get(s.nodeName);
      if (seen === undefined || s.index > seen.index) last.set(s.nodeName, s);
    }
    for (const [name, s] of last) {
      if (s.attempt === undefined || (s.status !== "running" && s.status !== "stopped")) continue;
      this.#leftOff ??= new Map();
      this.#leftOff.set(name, { versions: versionsKey(s.inputVersions), status: s.status, attempt: s.attempt });
    }
  }

  /**
   * The attempt the node's call in this run starts with: the first one, unless the stored history left this very
   * step unfinished. A stop's attempt runs again under its number; a crash's too, once per step — cut short again,
   * it counts as failed. A number beyond `attempts`: the crashes spent the budget, the node is not called again.
   */
  first(ex: Execution): StepAttempt {
    const leftOff = this.#leftOff?.get(ex.node.name);
    if (leftOff === undefined) return FIRST;
    this.#leftOff!.delete(ex.node.name); // one resumed step per node: a later run of it in this run is a new step
    if (leftOff.versions !== versionsKey(ex.versions)) return FIRST;
    const { number, repeats } = leftOff.attempt;
    if (leftOff.status === "stopped" || repeats < REPEATS)
      return { number, repeats: leftOff.status === "stopped" ? repeats : repeats + 1 };
    return { number: number + 1, repeats };
  }

  /** Records that `attempt` starts: before the call in `sync` durability, queued with the other steps otherwise. */
  start(host: EngineHost, ex: Execution, attempt: StepAttempt): Effect.Effect<void, RunError> {
    const save = this.#save;
    if (save === undefined) return Effect.void;
    const { config, state } = host;
    const now = new Date();
    return (
      save({
        workflowId: config.workflowId,
        superstep: state.superstep,
        nodeName: ex.node.name,
        index: state.nextIndex++,
        status: "running",
        inputVersions: ex.versions,
        values: {},
        truncated: false,
        attempt,
        startedAt: now,
        completedAt: now,
      }) ?? Effect.void
    );
  }
}
