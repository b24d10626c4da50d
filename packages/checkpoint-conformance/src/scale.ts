/**
 * The scale area of the conformance kit: what the listings, the retention sweep and a run's start cost as the store
 * grows, asserted as operation counts (statements or commands, from the adapter's probe) and plan shapes (no read of
 * a whole table or index), never as times. The store is filled twice, to a small size and to `size` workflows
 * written the way runs write them, and every operation is traced at both sizes: a page costs the same at both, a
 * walk over 1% of the workflows grows with its matches.
 */
import type { Checkpointer, CheckpointPolicy } from "@graph/checkpoint";
import { encodeWorkflowCursor } from "@graph/checkpoint/adapter";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fillWorkflows, isRare, RARE_GRAPH, rareCount, scaleId } from "./internal/scaleFill.js";

/** What a probe saw while a traced call ran. */
export interface ScaleTrace<A> {
  readonly result: A;
  /** Round trips to the store: SQL statements, or Redis commands (a script counts once). */
  readonly operations: number;
  /** The statements or commands that read a whole table, index or set (EXPLAIN / the command's range). */
  readonly fullScans: readonly string[];
}

/** How the adapter's test lets the scale area watch the store. */
export interface ScaleProbe {
  /** Runs `body` and reports what it sent to the store (only this store's traffic). */
  trace<A>(body: () => Promise<A>): Promise<ScaleTrace<A>>;
  /** Called after each fill, before tracing (e.g. `ANALYZE`, so the planner knows the sizes). */
  settle?(): Promise<void>;
}

/** Options of {@link describeScale}. */
export interface DescribeScaleOptions {
  readonly name: string;
  /** A new checkpointer on the probed storage (the same storage every call), with the given policy. */
  readonly create: (policy?: Partial<CheckpointPolicy>) => Checkpointer & { close(): Promise<void> };
  readonly probe: ScaleProbe;
  /**
   * A checkpointer on the same storage that writes the fills (untraced), when it is faster than `create()`'s — e.g.
   * the adapter's own class next to a probed `KyselyCheckpointer`. Default: one from `create()`.
   */
  readonly createFiller?: () => Checkpointer & { close(): Promise<void> };
  /** Stored workflows at the large size. Default 10,000 (`GRAPH_SCALE` overrides it, e.g. 100000). */
  readonly size?: number;
  /** Stored workflows at the small size. Default a tenth of `size`. */
  readonly smallSize?: number;
  /** Writes in flight while filling. Default 8 (use 1 for a single-writer database). */
  readonly concurrency?: number;
  /** Per-test timeout (the fills run in `beforeAll`). Default 10 minutes. */
  readonly timeoutMs?: number;
}

const PAGE = 20;

/** The large size: the option, else `GRAPH_SCALE`, else 10,000. */
export function scaleSize(options: { readonly size?: number }): number {
  const fromEnv = Number(process.env["GRAPH_SCALE"]);
  return options.size ?? (Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 10_000);
}

/**
 * Registers the scale tests of one adapter.
 *
 * @example
 * ```ts
 * describeScale({ name: "sqlite", create: (policy) => new KyselyCheckpointer({ db, dialect, policy, destroyOnClose: false }), probe });
 * ```
 */
export function describeScale(options: DescribeScaleOptions): void {
  const size = scaleSize(options);
  const small = options.smallSize ?? Math.max(100, Math.floor(size / 10));
  const timeout = options.timeoutMs ?? 600_000;
  const base = `scale-${process.pid}-${Date.now().toString(36)}`;
  const probe = options.probe;
  let store: Checkpointer & { close(): Promise<void> };
  let retained: Checkpointer & { close(): Promise<void> };
  /** Per operation: the trace at the small size, then at the large one. */
  const traces = new Map<string, ScaleTrace<unknown>[]>();
  let starts = 0;

  const ops: Record<string, (count: number) => Promise<unknown>> = {
    deepPage: async (count) => {
      const middle = await store.getWorkflow(scaleId(base, Math.floor(count / 2)));
      const cursor = encodeWorkflowCursor({ createdAt: middle!.createdAt, id: middle!.id });
      return trace(
        "deepPage",
        () => store.listWorkflows({ limit: PAGE, cursor }),
        (page) => page.workflows.length,
        PAGE,
      );
    },
    rareStatus: () =>
      trace(
        "rareStatus",
        () => store.listWorkflows({ status: "stopped", limit: PAGE }),
        (p) => p.workflows.length,
        0,
      ),
    statusPage: () =>
      trace(
        "statusPage",
        () => store.listWorkflows({ status: "failed", limit: PAGE }),
        (p) => p.workflows.length,
        PAGE,
      ),
    graphPage: (count) =>
      trace(
        "graphPage",
        // A page both sizes fill (a short page reads fewer records).
        () => store.listWorkflows({ graph: RARE_GRAPH, limit: 5 }),
        (p) => p.workflows.length,
        Math.min(5, rareCount(count)),
      ),
    // Ids 500 to 599 at both sizes.
    idPrefix: () =>
      trace(
        "idPrefix",
        () => store.listWorkflows({ idPrefix: `${base}-000005`, rootsOnly: true, limit: PAGE }),
        (p) => p.workflows.length,
        PAGE,
      ),
    // A start (and its release) on a store with a retention policy: nothing expired, nothing swept.
    startWithRetention: () =>
      trace(
        "startWithRetention",
        async () => {
          const id = `${base}-start-${++starts}`;
          const { lease } = await retained.startWorkflow!(
            { id, graphName: "start", graphHash: "h1" },
            { owner: "scale", ttlMs: 60_000 },
          );
          await retained.releaseWorkflow(id, lease);
          return lease.epoch;
        },
        (epoch) => epoch,
        1,
      ),
    sweepBatch: () =>
      trace(
        "sweepBatch",
        () => retained.sweepExpired!({ limit: 200 }),
        (n) => n,
        0,
      ),
  };

  async function trace<A>(name: string, body: () => Promise<A>, measure: (a: A) => number, expected: number) {
    const traced = await probe.trace(body);
    expect(measure(traced.result)).toBe(expected);
    traces.set(name, [...(traces.get(name) ?? []), traced]);
    return traced;
  }

  /** Every page of the rare graph's workflows: the walk a bulk operation over 1% does. */
  async function walkRare(count: number): Promise<number> {
    let operations = 0;
    let seen = 0;
    let cursor: string | undefined;
    do {
      const page = await probe.trace(() =>
        store.listWorkflows({
          graph: RARE_GRAPH,
          rootsOnly: true,
          limit: 100,
          ...(cursor === undefined ? {} : { cursor }),
        }),
      );
      expect(page.fullScans).toEqual([]);
      operations += page.operations;
      seen += page.result.workflows.length;
      cursor = page.result.nextCursor;
    } while (cursor !== undefined);
    expect(seen).toBe(rareCount(count));
    return operations;
  }

  const walks: number[] = [];

  describe(`checkpointer scale: ${options.name} (${small} → ${size} stored workflows)`, () => {
    beforeAll(async () => {
      store = options.create();
      retained = options.create({ ttlMs: 30 * 86_400_000 });
      await store.setup?.();
      await retained.setup?.();
      const filler = options.createFiller?.() ?? store;
      for (const count of [small, size]) {
        await fillWorkflows(filler, base, count === small ? 0 : small, count, options.concurrency ?? 8);
        await probe.settle?.();
        for (const op of Object.values(ops)) await op(count);
        walks.push(await walkRare(count));
      }
      if (filler !== store) await filler.close();
    }, timeout * 2);

    afterAll(async () => {
      await retained?.close();
      await store?.close();
    });

    for (const name of Object.keys(ops)) {
      it(`${name}: the same operations at ${size} as at ${small} stored workflows, none reading everything`, () => {
        const [atSmall, atLarge] = traces.get(name) ?? [];
        expect(atSmall).toBeDefined();
        expect(atLarge!.fullScans).toEqual([]);
        // A Redis walk may read one more range when a creation-time group crosses a batch: a constant, not a growth.
        expect(atLarge!.operations).toBeLessThanOrEqual(atSmall!.operations + 2);
      });
    }

    it("a start under a retention policy costs what a start without one does", async () => {
      const plain = await probe.trace(async () => {
        const id = `${base}-plain-${++starts}`;
        const { lease } = await store.startWorkflow!(
          { id, graphName: "start", graphHash: "h1" },
          { owner: "s", ttlMs: 60_000 },
        );
        await store.releaseWorkflow(id, lease);
      });
      expect(traces.get("startWithRetention")!.at(-1)!.operations).toBe(plain.operations);
    });

    it(`walking the 1% of one graph grows with its matches (${rareCount(small)} → ${rareCount(size)})`, () => {
      const growth = rareCount(size) / rareCount(small);
      expect(walks[1]!).toBeLessThanOrEqual(walks[0]! * growth * 1.5);
      expect(isRare(7)).toBe(true);
    });
  });
}
