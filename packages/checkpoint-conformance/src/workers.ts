/**
 * Helpers for an adapter's own multi-process tests: start real child processes running a TypeScript worker
 * script, release them at the same instant, and collect one result from each over IPC.
 *
 * @module
 */

import type { ChildProcess } from "node:child_process";
import { fork } from "node:child_process";
import path from "node:path";
import { scriptCommand } from "./internal/scriptBundle.js";

/**
 * How to start a TypeScript script in a child process quickly: bundled once with esbuild (cached on disk, rebuilt
 * when a source changes) and forked with no loader, or through tsx when esbuild is not installed.
 *
 * @example
 * ```ts
 * import { fork } from "node:child_process";
 * import { scriptCommand } from "@graph/checkpoint-conformance";
 * const { script, execArgv } = scriptCommand("/abs/test/fixtures/worker.ts");
 * const child = fork(script, ["claim"], { execArgv: [...execArgv] });
 * ```
 */
export { type ScriptCommand, scriptCommand } from "./internal/scriptBundle.js";

/**
 * A running worker process.
 *
 * @example
 * ```ts
 * import { startWorker, type Worker } from "@graph/checkpoint-conformance";
 * const worker: Worker = startWorker("/abs/test/fixtures/worker.ts", ["claim", "/tmp/store.db"]);
 * await worker.ready;
 * ```
 */
export interface Worker {
  readonly child: ChildProcess;
  /** Resolves when the worker said `{ type: "ready" }`. */
  readonly ready: Promise<void>;
  /** The worker's next message after `ready` (its result). */
  readonly result: Promise<Record<string, unknown>>;
  readonly stderr: () => string;
}

/**
 * Starts `script` (TypeScript, bundled by {@link scriptCommand}) with `args`, from `cwd` (default:
 * two levels above the script, i.e. the package root for `test/fixtures/worker.ts`).
 *
 * @example
 * ```ts
 * const worker = startWorker(fileURLToPath(new URL("./fixtures/worker.ts", import.meta.url)), ["write", file, "wf", "100"]);
 * ```
 */
export function startWorker(script: string, args: readonly string[], options: { readonly cwd?: string } = {}): Worker {
  const command = scriptCommand(script);
  const child = fork(command.script, args, {
    execArgv: [...command.execArgv],
    cwd: options.cwd ?? path.resolve(path.dirname(script), "../.."),
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let err = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const messages: Record<string, unknown>[] = [];
  const waiters: ((m: Record<string, unknown>) => void)[] = [];
  child.on("message", (message) => {
    const m = message as Record<string, unknown>;
    const waiter = waiters.shift();
    if (waiter) waiter(m);
    else messages.push(m);
  });
  const next = () =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const queued = messages.shift();
      if (queued) return resolve(queued);
      waiters.push(resolve);
      child.once("exit", (code) => reject(new Error(`worker exited with ${code}: ${err}`)));
    });
  const ready = next().then(() => undefined);
  const result = ready.then(next);
  return { child, ready, result, stderr: () => err };
}

/**
 * Starts one worker per argument list, waits until all are ready, releases them at the same instant (each
 * receives `{ type: "go", at }`) and returns their results in order. Workers still alive at the end are killed.
 *
 * @example
 * ```ts
 * const results = await runTogether(script, [["claim", file, "a"], ["claim", file, "b"]]);
 * ```
 */
export async function runTogether(
  script: string,
  argsList: readonly (readonly string[])[],
): Promise<Record<string, unknown>[]> {
  const workers = argsList.map((args) => startWorker(script, args));
  try {
    await Promise.all(workers.map((w) => w.ready));
    const at = Date.now() + 300;
    for (const w of workers) w.child.send({ type: "go", at });
    return await Promise.all(workers.map((w) => w.result));
  } finally {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill();
  }
}

/**
 * Resolves at the wall-clock time `at` (ms since epoch), busy-waiting the last milliseconds so processes released
 * together start within the same millisecond.
 *
 * @example
 * ```ts
 * await waitUntil(at + 500);
 * ```
 */
export function waitUntil(at: number): Promise<void> {
  return new Promise((resolve) => {
    const spin = () => {
      const left = at - Date.now();
      if (left > 3) setTimeout(spin, left - 3);
      else {
        while (Date.now() < at) {
          // busy-wait: all processes start within the same millisecond
        }
        resolve();
      }
    };
    spin();
  });
}

/**
 * The worker side of {@link runTogether}: says `ready`, waits for `go`, waits until the start instant, and
 * returns it plus a `send` for the result.
 *
 * @example
 * ```ts
 * const { at, send } = await workerStart();
 * send({ type: "result", ok: true });
 * ```
 */
export async function workerStart(): Promise<{ readonly at: number; readonly send: (message: unknown) => void }> {
  const send = (message: unknown) => void process.send?.(message);
  const go = new Promise<number>((resolve) => process.once("message", (m: { at: number }) => resolve(m.at)));
  send({ type: "ready" });
  const at = await go;
  await waitUntil(at);
  return { at, send };
}

/**
 * The worker side of a claim race: in each round (at `at + 500 + round * slotMs`) claims the workflow
 * `race-<round>` and records `won:<epoch>`, `lost` (WorkflowConflictError) or `error:<message>`.
 *
 * @example
 * ```ts
 * send({ type: "result", results: await claimRounds(checkpointer, { at, rounds: 20, slotMs: 50, owner: "a" }) });
 * ```
 */
export async function claimRounds(
  checkpointer: Pick<import("@graph/checkpoint").Checkpointer, "claimWorkflow">,
  options: { readonly at: number; readonly rounds: number; readonly slotMs: number; readonly owner: string },
): Promise<string[]> {
  const results: string[] = [];
  for (let round = 0; round < options.rounds; round++) {
    await waitUntil(options.at + 500 + round * options.slotMs);
    try {
      const lease = await checkpointer.claimWorkflow(`race-${round}`, { owner: options.owner, ttlMs: 60_000 });
      results.push(`won:${lease.epoch}`);
    } catch (error) {
      const tag = (error as { _tag?: string })._tag;
      results.push(tag === "WorkflowConflictError" ? "lost" : `error:${String(error)}`);
    }
  }
  return results;
}
