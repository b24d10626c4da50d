/**
 * The configuration of one run, and the one place that builds it: a top-level run (`root`), a nested GraphNode or an
 * in-process map item (`child`), and a map item another process dispatched (`item`). Every config has the same
 * fields in the same order, whoever built it: the engine reads them on its hot path.
 */
import { randomUUID } from "node:crypto";
import type { Checkpoint, UsageRecord } from "@graph/checkpoint";
import { BUDGET_KEY, type Graph } from "@graph/core";
import type { MapItemRunOptions, RunOptions } from "../options.js";
import { type NamedPause, namedPause } from "./answering.js";
import { type Emitter, makeEmitter, type RunControl, type Shared, type Subscriber } from "./context.js";
import { RootLease } from "./lease.js";
import { Meter } from "./meter.js";

/** Per-run configuration handed to the engine. Build it with {@link RunConfig.root}, `.child` or `.item`. */
export interface RunConfig {
  readonly values: Readonly<Record<string, unknown>>;
  readonly workflowId: string;
  readonly runId: string;
  readonly maxIterations: number;
  readonly shared: Shared;
  readonly emitter: Emitter;
  readonly control: RunControl;
  readonly completeOnStop: boolean;
  readonly parentSpanId: string | undefined;
  readonly depth: number;
  readonly checkpoint: Checkpoint | undefined;
  readonly force: boolean;
  /** Top-level runs take the workflow lease; child runs are covered by their parent's. */
  readonly isChild: boolean;
  readonly parentWorkflowId: string | undefined;
  /** The root run's lease (with a store): every run of the tree writes under its fence and stops when it is lost. */
  readonly lease: RootLease | undefined;
  /**
   * Child runs: the parent's version of every value passed in (by inner name). A restarted child merges only the
   * values whose parent version changed since it last started; the versions are recorded in its input step.
   */
  readonly parentVersions: Readonly<Record<string, number>> | undefined;
  /** Top-level runs: reject values the graph does not know ("error") or drop them with a Warning ("ignore"). */
  readonly unknownValues: "error" | "ignore" | undefined;
  /**
   * Root runs only. `wake`: this run resumes the workflow for the due time it had (epoch ms): it goes on only if
   * nobody resumed it since. `startAt`: a delayed start, created paused with this due time (epoch ms).
   */
  readonly time: { readonly wake?: number; readonly startAt?: number } | undefined;
  /** What the run tree spends and its budget: the root's, shared by every child run of this process. */
  readonly meter: Meter;
  /**
   * Root runs only: the `budget` option (replaces the stored budget) and the amounts a caller granted by answering
   * a budget pause (`values[BUDGET_KEY]`, taken out of `values`). Stored on the run's input record.
   */
  readonly budget: { readonly given: UsageRecord | undefined; readonly grant: UsageRecord | undefined } | undefined;
  /** Root runs only: the pause the caller's values answer (`answering`): taken only while it is pending. */
  readonly answering: NamedPause | undefined;
}

/** What a top-level run is built from besides its caller's options. */
interface RootInput {
  readonly graph: Graph;
  readonly options: RunOptions;
  readonly workflowId: string;
  readonly shared: Shared;
  readonly control: RunControl;
  /** `start()`/`stream()`: the reader of this run's events. */
  readonly subscriber: Subscriber | undefined;
  /** The `waitForLease` option in ms (undefined: a held lease fails the claim at once). */
  readonly waitForLeaseMs: number | undefined;
  /** See {@link RunConfig.time}. */
  readonly time?: RunConfig["time"];
}

/** What a child run takes from its parent's node: its workflow, the values passed in, whether a stop completes it. */
interface ChildInput {
  readonly workflowId: string;
  readonly values: Readonly<Record<string, unknown>>;
  readonly parentVersions: Readonly<Record<string, number>>;
  readonly completeOnStop: boolean;
  /** The span of the node that runs the child. */
  readonly parentSpanId: string;
}

function make(c: RunConfig): RunConfig {
  // Spelled out in one order (no spread): one object shape for every config.
  return {
    values: c.values,
    workflowId: c.workflowId,
    runId: c.runId,
    maxIterations: c.maxIterations,
    shared: c.shared,
    emitter: c.emitter,
    control: c.control,
    completeOnStop: c.completeOnStop,
    parentSpanId: c.parentSpanId,
    depth: c.depth,
    checkpoint: c.checkpoint,
    force: c.force,
    isChild: c.isChild,
    parentWorkflowId: c.parentWorkflowId,
    lease: c.lease,
    parentVersions: c.parentVersions,
    unknownValues: c.unknownValues,
    time: c.time,
    meter: c.meter,
    budget: c.budget,
    answering: c.answering,
  };
}

export const RunConfig = {
  /**
   * A top-level run of `runner.run`/`start`/`stream`/`map`: its own run id and emitter, and with a store the
   * workflow's lease (claimed when the run begins).
   */
  root(input: RootInput): RunConfig {
    const { options, workflowId, shared, control } = input;
    const emitter = makeEmitter(shared.processors, input.subscriber);
    const runId = randomUUID();
    if (emitter.active)
      control.onStop((info) => {
        emitter.emit({
          type: "StopRequested",
          info,
          runId,
          workflowId,
          spanId: "stop",
          parentSpanId: undefined,
          timestamp: Date.now(),
        });
      });
    const { values, grant } = takeGrant(options.values);
    const given = options.budget;
    return make({
      values,
      workflowId,
      runId,
      maxIterations: options.maxIterations ?? 1000,
      shared,
      emitter,
      control,
      completeOnStop: input.graph.completeOnStop,
      parentSpanId: undefined,
      depth: 0,
      checkpoint: options.checkpoint,
      force: options.force ?? false,
      isChild: false,
      parentWorkflowId: undefined,
      lease:
        shared.store === undefined
          ? undefined
          : RootLease.claimable(workflowId, shared.owner, control, options.recover === true, input.waitForLeaseMs),
      parentVersions: undefined,
      unknownValues: options.unknownValues ?? "error",
      time: input.time,
      meter: new Meter(given, Date.now()),
      budget: given === undefined && grant === undefined ? undefined : { given, grant },
      answering: namedPause(options.answering),
    });
  },

  /**
   * A child run of `parent` (a nested GraphNode, or one item of a mapped one run here): its own workflow and stop
   * boundary (released by the caller when the child ends), everything else the parent's — the run id, the emitter,
   * the root's lease.
   */
  child(parent: RunConfig, input: ChildInput): RunConfig {
    return make({
      values: input.values,
      workflowId: input.workflowId,
      runId: parent.runId,
      maxIterations: parent.maxIterations,
      shared: parent.shared,
      emitter: parent.emitter,
      control: parent.control.child(),
      completeOnStop: input.completeOnStop,
      parentSpanId: input.parentSpanId,
      depth: parent.depth + 1,
      checkpoint: undefined,
      force: parent.force,
      isChild: true,
      parentWorkflowId: parent.workflowId,
      lease: parent.lease,
      parentVersions: input.parentVersions,
      unknownValues: parent.unknownValues,
      time: undefined,
      meter: parent.meter,
      budget: undefined,
      answering: undefined,
    });
  },

  /**
   * One item of a map another process dispatched, run here as that process would have run it: a child workflow
   * with no lease of its own whose writes carry the root's fence. `shared` is the runner's shared state for such
   * items (their own maps run here).
   */
  item(options: MapItemRunOptions, shared: Shared, control: RunControl): RunConfig {
    return make({
      values: options.values,
      workflowId: options.workflowId,
      runId: randomUUID(),
      maxIterations: options.maxIterations,
      shared,
      emitter: makeEmitter(
        options.onEvent === undefined ? shared.processors : [...shared.processors, { onEvent: options.onEvent }],
        undefined,
      ),
      control,
      completeOnStop: options.completeOnStop,
      parentSpanId: undefined,
      depth: 1,
      checkpoint: undefined,
      force: false,
      isChild: true,
      parentWorkflowId: options.parentWorkflowId,
      lease: RootLease.fenced(options.fence, shared.owner, control),
      parentVersions: options.parentVersions,
      unknownValues: undefined,
      time: undefined,
      // Its totals reach the root through its stored steps (the map's step sums them); the root checks the budget.
      meter: new Meter(undefined, Date.now()),
      budget: undefined,
      answering: undefined,
    });
  },
};

/** Takes a budget grant (the answer to a budget pause) out of a root run's values. */
function takeGrant(values: Readonly<Record<string, unknown>> | undefined): {
  values: Readonly<Record<string, unknown>>;
  grant: UsageRecord | undefined;
} {
  if (values === undefined) return { values: {}, grant: undefined };
  if (!Object.hasOwn(values, BUDGET_KEY)) return { values, grant: undefined };
  const { [BUDGET_KEY]: grant, ...rest } = values;
  return { values: rest, grant: grant as UsageRecord };
}
