/**
 * Durable retry attempts through the runtime, on every adapter:
 *
 * - **Stop** (in-process): a run of `charge` (4 attempts) is stopped by another Runner during attempt 2; the resumed
 *   run goes on at attempt 2, not 1 — the calls are 1, 2 | 2, 3 — in `sync` and `async` durability.
 * - **SIGKILL** (with `engine.childProcess`): a child process kills itself during attempt 2 of 4; the test process
 *   resumes the workflow by id. In `sync` (the start is stored before the call) and `async` (the child dies once the
 *   writer stored it) the calls across both processes are exactly 1, 2 | 2, 3, 4 and then the node fails: the killed
 *   attempt runs again under its number once, and the budget of 4 is kept. In `exit` durability nothing is stored
 *   before the run ends, so the resumed run starts over: 1, 2 | 1, 2, 3, 4 (what docs/durability.md says).
 */
import fs from "node:fs";
import path from "node:path";
import type { Durability } from "@graph/checkpoint";
import { Runner } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import type { AttemptsChildMessage, AttemptsChildSpec } from "./attemptsChild.js";
import { ATTEMPTS, attemptsGraph, readCalls } from "./attemptsGraph.js";
import { closeQuietly, untilLeaseFree } from "./engineCommon.js";
import { ids } from "./fixtures.js";
import { openStorage, type Storage } from "./handles.js";
import type { DescribeCheckpointerOptions } from "./options.js";
import { adapterRef, type ChildProcessOptions, spawnScript } from "./processes.js";

const SLOW = 120_000;
const STOP_TIMING = { leaseTtlMs: 9_000, leaseRenewIntervalMs: 3_000, stopPollIntervalMs: 100 } as const;

/** What the tests around need: a lease for killed runs, the child-process limit and a temporary directory. */
export interface AttemptsContext {
  readonly leaseTtlMs: number;
  readonly spawnLimit: <A>(task: () => Promise<A>) => Promise<A>;
  readonly tmp: () => string;
}

const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve())));

/** The charge steps stored for a workflow: status and attempt, in index order. */
async function chargeSteps(storage: Storage, id: string) {
  const steps = await (await storage.open("sync")).getSteps(id);
  return steps.filter((s) => s.nodeName === "charge").map((s) => ({ status: s.status, attempt: s.attempt }));
}

/** Reads the charge steps on a storage of its own (the one the children write). */
async function storedChargeSteps(options: DescribeCheckpointerOptions, id: string) {
  const storage = await openStorage(options);
  try {
    return await chargeSteps(storage, id);
  } finally {
    await storage.close();
  }
}

/** In-process, on every adapter: a stop during attempt 2 resumes at attempt 2. */
export function describeAttemptsStop(options: DescribeCheckpointerOptions, tmp: () => string): void {
  describe("durable attempts: stop", () => {
    for (const durability of ["sync", "async"] as const satisfies readonly Durability[]) {
      it(`runner.stop during attempt 2 of ${ATTEMPTS}: the resumed run goes on at attempt 2, not 1 (${durability})`, {
        timeout: SLOW,
      }, async () => {
        const storage = await openStorage(options);
        const id = ids(`attempts-stop-${durability}`)();
        const log = path.join(tmp(), `${id}.log`);
        try {
          let resumed = false;
          let hanging!: () => void;
          const hangs = new Promise<void>((resolve) => (hanging = resolve));
          const graph = attemptsGraph(log, async (attempt, ctx) => {
            if (attempt === 2 && !resumed) {
              hanging();
              await aborted(ctx.signal);
            }
            return attempt === 3 ? "ok" : undefined;
          });
          const holder = new Runner({ checkpointer: await storage.open(durability), owner: "holder", ...STOP_TIMING });
          const stopper = new Runner({
            checkpointer: await storage.open(durability),
            owner: "stopper",
            ...STOP_TIMING,
          });
          const first = holder.run(graph, { workflowId: id, values: { order: "o-1" } });
          await hangs;
          expect(await stopper.stop(id)).toBe(true);
          expect((await first).status).toBe("stopped");
          expect(await chargeSteps(storage, id)).toStrictEqual([
            { status: "stopped", attempt: { number: 2, repeats: 0 } },
          ]);
          resumed = true;
          const second = await stopper.run(graph, { workflowId: id });
          expect(second.status).toBe("completed");
          expect(second.values).toStrictEqual({ receipt: "paid o-1 (attempt 3)" });
          expect(readCalls(log).map((c) => c.attempt)).toStrictEqual([1, 2, 2, 3]);
          expect((await chargeSteps(storage, id)).at(-1)).toStrictEqual({
            status: "completed",
            attempt: { number: 3, repeats: 0 },
          });
          await closeQuietly(holder);
          await closeQuietly(stopper);
        } finally {
          fs.rmSync(log, { force: true });
          await storage.close();
        }
      });
    }
  });
}

/** With child processes: SIGKILL during attempt 2 of 4, resumed in the test process. */
export function describeAttemptsCrash(
  options: DescribeCheckpointerOptions,
  child: ChildProcessOptions,
  context: AttemptsContext,
): void {
  const adapter = adapterRef(child);
  const expected: Readonly<Record<Durability, { readonly resumed: readonly number[] }>> = {
    sync: { resumed: [2, 3, 4] },
    async: { resumed: [2, 3, 4] },
    exit: { resumed: [1, 2, 3, 4] },
  };
  describe("durable attempts: SIGKILL", () => {
    for (const durability of ["sync", "async", "exit"] as const satisfies readonly Durability[]) {
      const { resumed } = expected[durability];
      it.concurrent(`SIGKILL during attempt 2 of ${ATTEMPTS}, resumed in another process: calls 1, 2 | ${resumed.join(", ")}, then the failure (${durability})`, {
        timeout: SLOW,
      }, async () => {
        const id = ids(`attempts-kill-${durability}`)();
        const log = path.join(context.tmp(), `${id}.log`);
        let storedAtCall: boolean | undefined;
        let killedPid: number | undefined;
        await context.spawnLimit(async () => {
          const spec: AttemptsChildSpec = {
            adapter,
            durability,
            leaseTtlMs: context.leaseTtlMs,
            workflowId: id,
            logFile: log,
            killAttempt: 2,
          };
          const killed = spawnScript<AttemptsChildMessage | { type: "error"; message: string }, never>(
            child,
            "attemptsChild",
            spec,
          );
          killedPid = killed.pid;
          const said = await killed.next();
          if (said.type !== "dying") throw new Error(`the child failed: ${JSON.stringify(said)}\n${killed.stderr()}`);
          storedAtCall = said.storedAtCall;
          const exit = await killed.exit;
          expect(exit.signal, `the child running '${id}' kills itself`).toBe("SIGKILL");
        });
        const where = `${durability}, SIGKILL in attempt 2`;
        if (durability === "sync") expect(storedAtCall, `${where}: attempt 2 was stored before its call`).toBe(true);
        expect(readCalls(log), `${where}: the killed process's calls`).toStrictEqual([
          { pid: killedPid, attempt: 1 },
          { pid: killedPid, attempt: 2 },
        ]);
        const left = await storedChargeSteps(options, id);
        expect(left, `${where}: what the killed run left`).toStrictEqual(
          durability === "exit" ? [] : [{ status: "running", attempt: { number: 2, repeats: 0 } }],
        );

        const storage = await openStorage(options);
        const attemptsSeen: number[] = [];
        const runner = new Runner({ checkpointer: await storage.open(durability) });
        try {
          const graph = attemptsGraph(log, (attempt) => void attemptsSeen.push(attempt));
          const result = await untilLeaseFree(context.leaseTtlMs, () =>
            runner.run(graph, { workflowId: id, errorHandling: "continue" }),
          );
          expect(result.status, `${where}: the resumed run fails once the budget is spent`).toBe("failed");
          const error = result.error as { _tag?: string; nodeName?: string; cause?: Error } | undefined;
          expect(error?._tag).toBe("NodeExecutionError");
          expect(error?.nodeName).toBe("charge");
          expect(error?.cause?.message).toBe(`bank down (attempt ${ATTEMPTS})`);
        } finally {
          await closeQuietly(runner);
          await storage.close();
        }
        expect(attemptsSeen, `${where}: ctx.attempt in the resumed process`).toStrictEqual(resumed);
        const calls = readCalls(log);
        expect(
          calls.map((c) => c.attempt),
          `${where}: every call, both processes`,
        ).toStrictEqual([1, 2, ...resumed]);
        expect(calls.slice(2).every((c) => c.pid === process.pid)).toBe(true);
        const after = await storedChargeSteps(options, id);
        expect(after.at(-1), `${where}: the node's last step`).toStrictEqual({
          status: "failed",
          attempt: { number: ATTEMPTS, repeats: durability === "exit" ? 0 : 1 },
        });
        fs.rmSync(log, { force: true });
      });
    }
  });
}
