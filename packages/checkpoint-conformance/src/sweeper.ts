/**
 * Retention housekeeping under load, with real processes: a store holds many expired workflows (written the way runs
 * write them), three child processes start runs one after another on it — two with the retention policy, one
 * without — while the test process sweeps everything expired through `runner.sweepExpired()`. No run may fail, every
 * expired workflow must go, and the children must have started runs during the sweep.
 *
 * @module
 */
import { resolvePolicy } from "@graph/checkpoint";
import { Runner } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import type { ChildProcessOptions } from "./internal/processes.js";
import { adapterRef, loadFactory, spawnScript } from "./internal/processes.js";
import { fillWorkflows } from "./internal/scaleFill.js";
import type { SweepChildMessage, SweepChildSpec } from "./internal/sweepChild.js";
import { scaleSize } from "./scale.js";

/** Options of {@link describeSweeperUnderLoad}. */
export interface DescribeSweeperOptions {
  readonly name: string;
  /** How the children (and the test process) open the store: the adapter module of the engine tests. */
  readonly childProcess: ChildProcessOptions;
  /** Expired workflows to sweep. Default 10,000 (`GRAPH_SCALE` overrides it). */
  readonly size?: number;
  /** Writes in flight while filling. Default 8. */
  readonly concurrency?: number;
  /** Test timeout. Default 15 minutes. */
  readonly timeoutMs?: number;
}

const TTL_MS = 1_000;

/**
 * Registers the test.
 *
 * @example
 * ```ts
 * describeSweeperUnderLoad({ name: "sqlite", childProcess: { module: adapterModulePath, args: { path: file } } });
 * ```
 */
export function describeSweeperUnderLoad(options: DescribeSweeperOptions): void {
  const size = scaleSize(options);
  describe(`retention sweeper under load: ${options.name}`, () => {
    it(`sweeps ${size} expired workflows while three processes start runs: no run fails`, {
      timeout: options.timeoutMs ?? 900_000,
    }, async () => {
      const ref = adapterRef(options.childProcess);
      const factory = await loadFactory(ref);
      const policy = resolvePolicy({ ttlMs: TTL_MS });
      const checkpointer = await factory(ref.args, { policy });
      const base = `sweep-${process.pid}-${Date.now().toString(36)}`;
      await checkpointer.setup?.();
      await fillWorkflows(checkpointer, base, 0, size, options.concurrency ?? 8);
      await new Promise((resolve) => setTimeout(resolve, TTL_MS + 100));

      const specs: SweepChildSpec[] = [TTL_MS, TTL_MS, undefined].map((ttlMs) => ({ adapter: ref, base, ttlMs }));
      const children = specs.map((spec) =>
        spawnScript<SweepChildMessage, { type: "go" | "stop" }>(options.childProcess, "sweepChild", spec),
      );
      try {
        for (const child of children) expect((await child.next()).type).toBe("ready");
        for (const child of children) child.send({ type: "go" });
        // Sweeps of at most 5 s each (the timer's too), as many as it takes: the children's finished runs expire
        // a second later and are swept as well, so a sweep never runs out of work while they run.
        const runner = new Runner({ checkpointer, housekeeping: { intervalMs: 5_000 }, scheduler: false });
        const filledLeft = async () =>
          (await checkpointer.listWorkflows({ idPrefix: `${base}-0`, limit: 1 })).workflows.length;
        let deleted = 0;
        let sweeps = 0;
        while ((await filledLeft()) > 0) {
          expect(++sweeps).toBeLessThan(1_000);
          deleted += (await runner.sweepExpired())?.deleted ?? 0;
        }
        for (const child of children) child.send({ type: "stop" });
        const results = await Promise.all(children.map((child) => child.next()));
        for (const result of results) {
          if (result.type === "error") throw new Error(result.message);
          expect(result.type).toBe("done");
          if (result.type !== "done") continue;
          expect(result.failures).toEqual([]);
          expect(result.completed).toBeGreaterThan(0);
        }
        // Every filled workflow expired; runs the children finished may have expired and gone too.
        expect(deleted).toBeGreaterThanOrEqual(size);
        expect(await filledLeft()).toBe(0);
        await runner.close();
      } finally {
        for (const child of children) child.kill();
      }
    });
  });
}
