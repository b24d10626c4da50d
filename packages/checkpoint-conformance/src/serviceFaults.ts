/**
 * Service faults: the storage service fails in the middle of a run (a database backend terminated, a server
 * restarted). The run must end with a **tagged** error — never crash the process, never hang — and a resume by id
 * once the service is back must finish the workflow exactly: every step committed before the fault is kept (its
 * node does not run again), every other node runs once more, and the final values equal a clean run's.
 *
 * @module
 */
import type { Checkpointer, Durability } from "@graph/checkpoint";
import { Runner } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import { closeQuietly, count, plainValues, tagOf, untilLeaseFree } from "./internal/engineCommon.js";
import { FAULT_EXECUTIONS, FAULT_VALUES, faultGraph } from "./internal/faultGraph.js";
import { ids } from "./internal/fixtures.js";

/**
 * A fault of the storage service, for {@link describeServiceFaults}.
 *
 * @example
 * ```ts
 * const fault: ServiceFault = {
 *   name: "PostgreSQL backend terminated",
 *   open: (durability) => new PostgresCheckpointer({ connectionString, schema, policy: { durability } }),
 *   inject: async ({ proceed }) => {
 *     await admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'x'");
 *     proceed();
 *   },
 * };
 * ```
 */
export interface ServiceFault {
  /** Names the fault in the test titles. */
  readonly name: string;
  /** A new checkpointer on the faulty service with this durability (each call a new instance). */
  readonly open: (durability: Durability) => Checkpointer | Promise<Checkpointer>;
  /**
   * Makes the service fail (terminate the connections, stop the server…) and calls `proceed()`, which lets the run
   * go on to its next write — before the fault (so the write meets a dead service), or after it started when the
   * fault must land inside a write (e.g. terminate a backend that waits on a lock). Resolves when the fault is done.
   */
  readonly inject: (context: { readonly workflowId: string; readonly proceed: () => void }) => Promise<void>;
  /** Brings the service back, when `inject` left it down (restart the server). */
  readonly recover?: () => Promise<void>;
  /** Durability modes to try. Default `sync`, `async` and `exit`. */
  readonly durabilities?: readonly Durability[];
  /** Error tags the failed run may end with. Default `CheckpointError`. */
  readonly tags?: readonly string[];
}

/** Lease of the run that meets the fault: the resume waits it out. */
const LEASE_TTL_MS = 1000;

/**
 * Registers one test per durability mode: a run of a 4-node workflow meets `fault` while its second node runs, must
 * fail with a tagged error, and is resumed by id after `recover()` to the clean run's values with no committed step
 * run again.
 *
 * @example
 * ```ts
 * describeServiceFaults(fault); // in packages/checkpoint-postgres/test/serviceFaults.int.test.ts
 * ```
 */
export function describeServiceFaults(fault: ServiceFault): void {
  describe(`service fault: ${fault.name}`, () => {
    for (const durability of fault.durabilities ?? ["sync", "async", "exit"]) {
      it(`${fault.name} mid-run (${durability}): a tagged error, then an exact resume by id`, {
        timeout: 120_000,
      }, async () => {
        const workflowId = ids(`fault-${durability}`)();
        const log: string[] = [];
        let reached!: () => void;
        const atFault = new Promise<void>((resolve) => (reached = resolve));
        let injected!: () => void;
        const afterFault = new Promise<void>((resolve) => (injected = resolve));
        const first = new Runner({ checkpointer: await fault.open(durability), leaseTtlMs: LEASE_TTL_MS });
        const running = first
          .run(
            faultGraph(
              (label) => log.push(label),
              () => {
                reached();
                return afterFault;
              },
            ),
            { workflowId, values: FAULT_VALUES },
          )
          .then(
            (result) => ({ result }),
            (error: unknown) => ({ error }),
          );
        await Promise.race([atFault, running]);
        await fault.inject({ workflowId, proceed: injected });
        injected();
        const ended = await running;
        await closeQuietly(first);
        if ("result" in ended)
          throw new Error(`the run went on through '${fault.name}' and ended ${ended.result.status}`);
        const tag = tagOf(ended.error);
        expect(fault.tags ?? ["CheckpointError"], `the run's error: ${String(ended.error)}`).toContain(tag);
        await fault.recover?.();

        const handle = await fault.open(durability);
        const committed = count(
          (await handle.getSteps(workflowId)).filter((s) => s.status === "completed").map((s) => s.nodeName),
        );
        const resumedLog: string[] = [];
        const second = new Runner({ checkpointer: handle });
        try {
          const result = await untilLeaseFree(LEASE_TTL_MS, () =>
            second.run(
              faultGraph(
                (label) => resumedLog.push(label),
                async () => undefined,
              ),
              { workflowId },
            ),
          );
          expect(result.status).toBe("completed");
          const clean = await new Runner().run(
            faultGraph(
              () => undefined,
              async () => undefined,
            ),
            { values: FAULT_VALUES },
          );
          expect(plainValues(result), "final values: a clean run's").toStrictEqual(plainValues(clean));
          const expected: Record<string, number> = {};
          for (const [label, times] of Object.entries(FAULT_EXECUTIONS)) {
            const left = times - (committed[label] ?? 0);
            if (left > 0) expected[label] = left;
          }
          expect(
            count(resumedLog),
            `executions of the resume = a clean run's − the ${JSON.stringify(committed)} committed`,
          ).toStrictEqual(expected);
        } finally {
          await closeQuietly(second);
        }
      });
    }
  });
}
