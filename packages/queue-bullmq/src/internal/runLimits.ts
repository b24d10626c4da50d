/**
 * Run-level keys on the queue: at most `limit` runs of a key at once (or started per window) across every worker.
 * The permits are the store's leased, fenced slots node limits use (`storePermitSlots`), keyed `run\0<kind>\0<key>`,
 * held for the run's whole duration and given back when it ends, pauses or fails (a SIGKILLed worker's after the
 * lease TTL). A worker that takes a run whose key is at its limit does not wait with the job: it moves the job back
 * to BullMQ's delayed set (`moveToDelayed` + `DelayedError`) and frees its slot; the job comes back after a short
 * backoff, or at once when a run of its key gives its permit back (the releasing worker promotes one waiting job).
 */
import { createHash } from "node:crypto";
import type { Checkpointer } from "@graph/checkpoint";
import { type Duration, parseDuration } from "@graph/core";
import { InvalidOptionError } from "@graph/runtime";
import type { HeldPermit, StorePermitSlots } from "@graph/runtime/worker";
import { DelayedError, type Job, type Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { QueueKeys } from "./keys.js";

/** At most `limit` runs with this `key` at once across the pool. */
export interface RunConcurrency {
  readonly key: string;
  readonly limit: number;
}

/** At most `limit` runs with this `key` started per `per` (a `Duration`: `"1m"`, `500`) across the pool. */
export interface RunRateLimit {
  readonly key: string;
  readonly limit: number;
  readonly per: Duration;
}

/** What a worker's default key function is told about the run besides its input values. */
export interface RunKeyContext {
  readonly graphName: string;
  readonly workflowId: string;
}

/** A worker's key function: the run's key from its input values (the values given to the submission). */
export type RunKeyFunction = (values: Readonly<Record<string, unknown>>, run: RunKeyContext) => string;

/**
 * `GraphWorker`'s `runLimits`: the limits of runs submitted without their own (`RemoteRunner.submit`'s `concurrency`
 * / `rateLimit` replace them, kind by kind). Without `key`, one limit for every run.
 */
export interface WorkerRunLimits {
  readonly concurrency?: { readonly key?: RunKeyFunction; readonly limit: number };
  readonly rateLimit?: { readonly key?: RunKeyFunction; readonly limit: number; readonly per: Duration };
}

/** A job's run-level limits, keys evaluated (in the job's data). */
export interface RunLimitsWire {
  readonly concurrency?: RunConcurrency;
  readonly rate?: { readonly key: string; readonly limit: number; readonly perMs: number };
}

/** The longest a waiting run stays in the delayed set before it tries again without being promoted. */
const MAX_RETRY_MS = 500;

const describe = (v: unknown): string =>
  typeof v === "string" ? JSON.stringify(v) : v === null || typeof v !== "object" ? String(v) : "an object";

function bad(where: string, option: string, got: unknown, expected: string, example: string): never {
  throw new InvalidOptionError(
    `${where}: option '${option}' must be ${expected}, got ${describe(got)}.\n  How to fix: e.g. ${example}.`,
    option,
  );
}

const isLimit = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 1;

function perMsOf(where: string, option: string, per: unknown): number {
  let ms: number;
  try {
    ms = parseDuration(per, `window of ${option}`);
  } catch (error) {
    throw new InvalidOptionError(`${where}: option '${option}.per': ${(error as Error).message}`, `${option}.per`);
  }
  if (ms <= 0) bad(where, `${option}.per`, per, "a duration longer than 0", `{ per: "1m" }`);
  return ms;
}

/** `RemoteRunner.submit`'s `concurrency` and `rateLimit`, checked; undefined when neither is given. */
export function submitLimits(when: Record<string, unknown>): RunLimitsWire | undefined {
  const where = "RemoteRunner.submit()";
  const c = when["concurrency"];
  const r = when["rateLimit"];
  const example = `{ concurrency: { key: "tenant-7", limit: 2 } }`;
  if (c !== undefined) {
    if (typeof c !== "object" || c === null) bad(where, "concurrency", c, "{ key, limit }", example);
    const { key, limit } = c as Record<string, unknown>;
    if (typeof key !== "string" || key === "") bad(where, "concurrency.key", key, "a non-empty string", example);
    if (!isLimit(limit)) bad(where, "concurrency.limit", limit, "an integer ≥ 1", example);
    const extra = Object.keys(c).find((k) => k !== "key" && k !== "limit");
    if (extra !== undefined)
      bad(where, `concurrency.${extra}`, extra, "left out (the options are key and limit)", example);
  }
  const rateExample = `{ rateLimit: { key: "tenant-7", limit: 60, per: "1m" } }`;
  let perMs = 0;
  if (r !== undefined) {
    if (typeof r !== "object" || r === null) bad(where, "rateLimit", r, "{ key, limit, per }", rateExample);
    const { key, limit, per } = r as Record<string, unknown>;
    if (typeof key !== "string" || key === "") bad(where, "rateLimit.key", key, "a non-empty string", rateExample);
    if (!isLimit(limit)) bad(where, "rateLimit.limit", limit, "an integer ≥ 1", rateExample);
    const extra = Object.keys(r).find((k) => k !== "key" && k !== "limit" && k !== "per");
    if (extra !== undefined)
      bad(where, `rateLimit.${extra}`, extra, "left out (the options are key, limit and per)", rateExample);
    perMs = perMsOf(where, "rateLimit", per);
  }
  if (c === undefined && r === undefined) return undefined;
  const cc = c as RunConcurrency | undefined;
  const rr = r as RunRateLimit | undefined;
  return {
    ...(cc === undefined ? {} : { concurrency: { key: cc.key, limit: cc.limit } }),
    ...(rr === undefined ? {} : { rate: { key: rr.key, limit: rr.limit, perMs } }),
  };
}

/** `GraphWorker`'s `runLimits`, checked when the worker is built. */
export function checkWorkerRunLimits(option: unknown): void {
  const where = "new GraphWorker()";
  if (option === undefined) return;
  const example = "{ runLimits: { concurrency: { key: (values) => String(values.tenantId), limit: 2 } } }";
  if (typeof option !== "object" || option === null)
    bad(where, "runLimits", option, "{ concurrency?, rateLimit? }", example);
  const o = option as Record<string, unknown>;
  const extra = Object.keys(o).find((k) => k !== "concurrency" && k !== "rateLimit");
  if (extra !== undefined)
    bad(where, `runLimits.${extra}`, extra, "left out (the options are concurrency and rateLimit)", example);
  for (const kind of ["concurrency", "rateLimit"] as const) {
    const v = o[kind];
    if (v === undefined) continue;
    const name = `runLimits.${kind}`;
    if (typeof v !== "object" || v === null) bad(where, name, v, "{ key?, limit }", example);
    const { key, limit, per } = v as Record<string, unknown>;
    if (key !== undefined && typeof key !== "function")
      bad(where, `${name}.key`, key, "a function of the run's values", example);
    if (!isLimit(limit)) bad(where, `${name}.limit`, limit, "an integer ≥ 1", example);
    if (kind === "rateLimit") perMsOf(where, name, per);
  }
}

/** A worker's key function threw: the run fails with its error (`cause`), as a node whose key function throws. */
export class RunKeyError extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** The permits a run holds, given back by `leave()` (rate permits expire on their own). */
export interface RunPass {
  leave(): Promise<void>;
}
const NO_PASS: RunPass = { leave: () => Promise.resolve() };

/** What the gate needs from its worker. */
export interface RunGateDeps {
  readonly slots: () => StorePermitSlots;
  readonly redis: () => Redis;
  readonly queue: () => Queue;
  readonly keys: QueueKeys;
  readonly checkpointer: Checkpointer;
  readonly defaults: WorkerRunLimits | undefined;
}

const hashOf = (key: string): string => createHash("sha256").update(key).digest("hex").slice(0, 24);
const rateHoldMs = (per: number): number => per + Math.min(100, per * 0.1);

/** A worker's run-level limits: what a job's limits are, and taking / giving back their permits. */
export class RunGate {
  constructor(readonly deps: RunGateDeps) {}

  /**
   * The job's limits: its own (from the submission), else the worker's defaults computed from its values — stored
   * in the job's data at the first delivery, so a redelivery (its inputs gone once saved) keeps the same key.
   * Throws what a key function throws.
   */
  async limits(job: Job, values: Readonly<Record<string, unknown>> | undefined): Promise<RunLimitsWire | undefined> {
    const data = job.data as { limits?: RunLimitsWire; workflowId: string; graphName: string };
    if (data.limits !== undefined) return data.limits;
    const d = this.deps.defaults;
    if (d === undefined || (d.concurrency === undefined && d.rateLimit === undefined)) return undefined;
    const run = { graphName: data.graphName, workflowId: data.workflowId };
    const keyOf = (fn: RunKeyFunction | undefined): string => {
      if (fn === undefined) return "";
      try {
        return String(fn(values ?? {}, run));
      } catch (error) {
        throw new RunKeyError(error);
      }
    };
    const limits: RunLimitsWire = {
      ...(d.concurrency === undefined
        ? {}
        : { concurrency: { key: keyOf(d.concurrency.key), limit: d.concurrency.limit } }),
      ...(d.rateLimit === undefined
        ? {}
        : {
            rate: {
              key: keyOf(d.rateLimit.key),
              limit: d.rateLimit.limit,
              perMs: parseDuration(d.rateLimit.per, "runLimits.rateLimit.per"),
            },
          }),
    };
    await job.updateData({ ...data, limits });
    return limits;
  }

  /**
   * Takes the run's permits, or moves the job back to the delayed set and throws BullMQ's `DelayedError` (the
   * processor rethrows it: the worker slot is free at once). A run whose stop was requested needs no permit: it ends
   * `stopped` before any node.
   */
  async enter(job: Job, token: string, limits: RunLimitsWire | undefined): Promise<RunPass> {
    if (limits === undefined) return NO_PASS;
    const workflowId = (job.data as { workflowId: string }).workflowId;
    if ((await this.deps.checkpointer.getWorkflow(workflowId))?.stopRequested !== undefined) return NO_PASS;
    const slots = this.deps.slots();
    const c = limits.concurrency;
    const cKey = c === undefined ? undefined : `run\u0000concurrency\u0000${c.key}`;
    const held = c === undefined ? undefined : await slots.tryTake(cKey!, c.limit);
    if (c !== undefined && held === undefined) return this.#wait(job, token, hashOf(cKey!));
    const r = limits.rate;
    if (r !== undefined) {
      const rated = await slots.tryTake(`run\u0000rate\u0000${r.key}`, r.limit, rateHoldMs(r.perMs));
      if (rated === undefined) {
        if (held !== undefined) await slots.release(held).catch(() => {});
        return this.#wait(job, token, undefined);
      }
    }
    const waiters = cKey === undefined ? undefined : this.deps.keys.runWaiters(hashOf(cKey));
    if (waiters !== undefined)
      this.deps
        .redis()
        .zrem(waiters, job.id!)
        .catch(() => {});
    if (held === undefined) return NO_PASS;
    return { leave: () => this.#leave(held, waiters!).catch(() => {}) };
  }

  async #wait(job: Job, token: string, hash: string | undefined): Promise<never> {
    // Consecutive waits of this job (deliveries that neither ran nor failed): the backoff grows with them.
    const waits = Math.max(0, job.attemptsStarted - 1 - job.attemptsMade);
    const ms = Math.min(MAX_RETRY_MS, 50 * 2 ** Math.min(waits, 4)) * (0.75 + Math.random() / 2);
    if (hash !== undefined) await this.deps.redis().zadd(this.deps.keys.runWaiters(hash), Date.now(), job.id!);
    await job.moveToDelayed(Date.now() + ms, token);
    throw new DelayedError();
  }

  /** Gives the concurrency permit back, and promotes the longest-waiting delayed run of the key (if still delayed). */
  async #leave(permit: HeldPermit, waiters: string): Promise<void> {
    await this.deps
      .slots()
      .release(permit)
      .catch(() => {
        // The lease expires on its own: the next run of the key waits for the TTL.
      });
    const redis = this.deps.redis();
    for (let tries = 0; tries < 3; tries++) {
      const [id] = await redis.zpopmin(waiters);
      if (id === undefined) return;
      const job = await this.deps.queue().getJob(id);
      if (job === undefined || !(await job.isDelayed())) continue;
      await job.promote().catch(() => {});
      return;
    }
  }
}
