import { INPUT_STEP } from "@graph/checkpoint";
import type { GraphNode } from "@graph/core";
import * as Effect from "effect/Effect";
import { RunResult } from "../../RunResult.js";
import type { ChildRun, EngineHost } from "../host.js";
import { rollUp } from "../journalUsage.js";
import { dispatchable, dispatchMapped } from "../mapDispatch.js";
import { mapItems } from "../mapItems.js";
import { MappedResults } from "../mappedResults.js";
import { type Execution, itemFailure, type Outcome, type RunError } from "../outcome.js";
import { responseKeys } from "../responseKeys.js";
import { RunConfig } from "../runConfig.js";
import { executeFrames } from "./frames.js";

export interface ChildValues {
  readonly values: Record<string, unknown>;
  readonly versions: Record<string, number>;
}

/** A nested graph runs as a child workflow `<parent>/<node>`; a mapped one as one child per item. */
export function executeGraph(host: EngineHost, ex: Execution, n: GraphNode): Effect.Effect<Outcome, RunError> {
  if (n.framesConfig !== undefined) return executeFrames(host, ex, n);
  if (n.mapOverConfig !== undefined) return executeMapped(host, ex, n);
  const childId = `${host.config.workflowId}/${n.name}`;
  const config = childConfig(host, ex, n, childId, childValues(host, ex, n));
  return host
    .spawn(n.graph, config)
    .run()
    .pipe(
      Effect.ensuring(Effect.sync(() => host.config.control.release(config.control))),
      Effect.map((child) => rollUp(ex, projectChild(n, child, childId), child.usage, true)),
      Effect.catchAll((error) => Effect.succeed<Outcome>({ kind: "failed", error, childWorkflowId: childId })),
    );
}

/** The config of the child run of `n` (the nested graph, or one item of it) under this run. */
function childConfig(
  host: EngineHost,
  ex: Execution,
  n: GraphNode,
  workflowId: string,
  passed: ChildValues,
): RunConfig {
  return RunConfig.child(host.config, {
    workflowId,
    values: passed.values,
    parentVersions: passed.versions,
    completeOnStop: n.completeOnStop,
    parentSpanId: ex.spanId,
  });
}

/**
 * Values a child run receives — its inputs by inner name, plus answers for its interrupts — with their versions
 * here, so a restarted child takes only what changed since it last started.
 */
function childValues(host: EngineHost, ex: Execution, n: GraphNode): ChildValues {
  const values: Record<string, unknown> = {};
  const versions: Record<string, number> = {};
  for (const input of n.inputs) {
    if (!Object.hasOwn(ex.inputs, input)) continue;
    const inner = n.innerInput(input)!;
    values[inner] = ex.inputs[input];
    versions[inner] = ex.versions[input] ?? 0;
  }
  for (const inner of responseKeys(n.graph)) {
    const outer = n.outerOutput(inner);
    const slot = outer === undefined ? undefined : host.state.values.get(outer);
    if (slot !== undefined && slot.writer === INPUT_STEP) {
      values[inner] = slot.value;
      versions[inner] = slot.version;
    }
  }
  return { values, versions };
}

function projectChild(n: GraphNode, child: RunResult, childWorkflowId: string): Outcome {
  if (child.status === "failed") return { kind: "failed", error: child.error, nested: child, childWorkflowId };
  if (child.status === "paused") {
    const pause = child.pause!;
    return {
      kind: "paused",
      nested: child,
      childWorkflowId,
      pause: {
        ...pause,
        nodeName: `${n.name}/${pause.nodeName}`,
        responseKey: n.outerOutput(pause.responseKey) ?? pause.responseKey,
      },
    };
  }
  if (child.status === "stopped" && !n.completeOnStop) return { kind: "stopped", nested: child, childWorkflowId };
  const outputs: Record<string, unknown> = {};
  for (const outer of n.outputs) {
    const inner = n.innerOutput(outer)!;
    if (Object.hasOwn(child.values, inner) && !(child.values[inner] instanceof RunResult))
      outputs[outer] = child.values[inner];
  }
  return { kind: "completed", outputs, nested: child, childWorkflowId, truncated: child.status === "stopped" };
}

function executeMapped(host: EngineHost, ex: Execution, n: GraphNode): Effect.Effect<Outcome, RunError> {
  return Effect.suspend(() => {
    const base = childValues(host, ex, n);
    const mapOver = n.mapOverConfig!;
    const items = mapItems(
      n.name,
      mapOver.params.map((p) => [n.innerInput(p)!, ex.inputs[p]] as const),
      mapOver.mode,
    );
    if (!Array.isArray(items)) return Effect.succeed<Outcome>({ kind: "failed", error: items });
    if (dispatchable(host, items.length))
      return dispatchMapped(host, ex, n, base, items, () => runMappedHere(host, ex, n, base, items));
    return runMappedHere(host, ex, n, base, items);
  });
}

/** The items of a mapped node as child runs of this process (`base`: the values every item gets). */
function runMappedHere(
  host: EngineHost,
  ex: Execution,
  n: GraphNode,
  base: ChildValues,
  items: readonly Record<string, unknown>[],
): Effect.Effect<Outcome, RunError> {
  return Effect.suspend(() => {
    const total = items.length;
    const results = new MappedResults(n, total);
    let completed = 0;
    const concurrency = Math.min(n.mapOverConfig?.concurrency ?? 256, host.config.shared.maxConcurrency ?? 256);
    const parentId = `${host.config.workflowId}/${n.name}`;
    const spawnItem = (i: number) => {
      const config = childConfig(host, ex, n, `${parentId}/${i}`, {
        values: { ...base.values, ...items[i] },
        versions: base.versions,
      });
      return { config, child: host.spawn(n.graph, config) };
    };
    const done = (i: number, r: RunResult, config: RunConfig) => {
      host.config.control.release(config.control);
      results.add(i, r);
      completed++;
      host.event("MapProgress", { nodeName: n.name, completed, total }, ex.spanId);
    };
    if (total > 0 && host.config.shared.store === undefined && !host.config.emitter.active)
      return runDirectPool(
        total,
        concurrency,
        spawnItem,
        done,
        (config) => host.config.control.release(config.control),
        (i, error) => itemFailure(n, i, error) as RunError,
      ).pipe(
        Effect.map(() => rollUp(ex, results.outcome(host, parentId), results.usage, true)),
        Effect.catchAll((error) => Effect.succeed<Outcome>({ kind: "failed", error, childWorkflowId: parentId })),
      );
    const runItem = (_: unknown, i: number) => {
      const { config, child } = spawnItem(i);
      return child.run().pipe(
        Effect.ensuring(Effect.sync(() => host.config.control.release(config.control))),
        Effect.map((r) => done(i, r, config)),
        // A typed failure of the item's run (a loop that never settled) names the item.
        Effect.mapError((error) => itemFailure(n, i, error) as RunError),
      );
    };
    return Effect.forEach(items, runItem, { concurrency, discard: true }).pipe(
      Effect.map(() => rollUp(ex, results.outcome(host, parentId), results.usage, true)),
      Effect.catchAll((error) => Effect.succeed<Outcome>({ kind: "failed", error, childWorkflowId: parentId })),
    );
  });
}

/**
 * Map items nobody listens to and nothing stores run as plain Promises, `concurrency` at a time, with no fiber
 * per item. The first item that fails (a typed run failure) fails the map; interruption abandons the rest.
 */
function runDirectPool(
  total: number,
  concurrency: number,
  spawnItem: (i: number) => { readonly config: RunConfig; readonly child: ChildRun },
  done: (i: number, r: RunResult, config: RunConfig) => void,
  release: (config: RunConfig) => void,
  failure: (i: number, error: unknown) => RunError,
): Effect.Effect<void, RunError> {
  return Effect.async<void, RunError>((resume) => {
    const running = new Set<ChildRun>();
    let next = 0;
    let finished = 0;
    let over = false;
    const launch = (): void => {
      while (!over && running.size < concurrency && next < total) {
        const i = next++;
        const { config, child } = spawnItem(i);
        running.add(child);
        child.runDirect().then(
          (r) => {
            running.delete(child);
            if (over) return;
            done(i, r, config);
            if (++finished === total) {
              over = true;
              resume(Effect.void);
            } else launch();
          },
          (error: unknown) => {
            running.delete(child);
            release(config);
            if (over) return;
            over = true;
            for (const c of running) c.abandon();
            resume(Effect.fail(failure(i, error)));
          },
        );
      }
    };
    launch();
    return Effect.sync(() => {
      over = true;
      for (const c of running) c.abandon();
    });
  });
}
