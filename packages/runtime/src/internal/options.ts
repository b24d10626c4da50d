import { workflowIdTooLong } from "@graph/checkpoint";
import { BUDGET_KEY } from "@graph/core";
import { InvalidOptionError } from "../errors.js";
import type { LeaseTiming } from "./lease.js";

/**
 * Validation of what callers pass to the Runner's public entries. Everything here runs before a run is registered
 * as live, so a rejected call leaves nothing behind; each problem is an {@link InvalidOptionError} naming the option,
 * what it got and what it takes.
 */
const describe = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
      ? "an array"
      : typeof value === "object"
        ? `an object (${Object.getPrototypeOf(value)?.constructor?.name ?? "no prototype"})`
        : `${typeof value} ${typeof value === "string" ? JSON.stringify(value) : String(value)}`;

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function fail(where: string, option: string, got: unknown, expected: string): never {
  throw new InvalidOptionError(
    `${where}: option '${option}' must be ${expected}, got ${describe(got)}.\n  How to fix: pass ${expected}, or leave '${option}' out.`,
    option,
  );
}

const CHECKPOINTER_METHODS = [
  "setup",
  "createWorkflow",
  "claimWorkflow",
  "releaseWorkflow",
  "getWorkflow",
  "updateWorkflow",
  "saveStep",
  "getSteps",
];

/** `new Runner(options)`. */
export function checkRunnerOptions(options: unknown): void {
  const where = "new Runner()";
  if (options === undefined) return;
  if (!isRecord(options)) fail(where, "options", options, "an options object ({ checkpointer?, maxConcurrency?, … })");
  const cp = options["checkpointer"];
  if (cp !== undefined) {
    const missing = isRecord(cp)
      ? CHECKPOINTER_METHODS.filter((m) => typeof cp[m] !== "function")
      : CHECKPOINTER_METHODS;
    if (missing.length > 0) {
      throw new InvalidOptionError(
        `${where}: option 'checkpointer' is not a Checkpointer (got ${describe(cp)}; missing ${missing.map((m) => `${m}()`).join(", ")}).\n` +
          `  How to fix: pass a checkpointer instance, e.g. new MemoryCheckpointer(), new SqliteCheckpointer({ path }) or new PostgresCheckpointer({ connectionString }).`,
        "checkpointer",
      );
    }
  }
  const closeCheckpointer = options["closeCheckpointer"];
  if (closeCheckpointer !== undefined && typeof closeCheckpointer !== "boolean")
    fail(where, "closeCheckpointer", closeCheckpointer, "true or false");
  const processors = options["eventProcessors"];
  if (processors !== undefined) {
    if (!Array.isArray(processors) || processors.some((p) => !isRecord(p) || typeof p["onEvent"] !== "function"))
      fail(where, "eventProcessors", processors, "an array of { onEvent(event) } objects");
  }
  for (const key of ["leaseTtlMs", "eventBufferSize"]) {
    const v = options[key];
    if (v !== undefined && !(typeof v === "number" && Number.isFinite(v) && v > 0))
      fail(where, key, v, "a positive number");
  }
  checkLeaseTiming(where, options);
  const dispatcher = options["mapDispatcher"];
  if (dispatcher !== undefined) {
    if (
      !isRecord(dispatcher) ||
      typeof dispatcher["dispatch"] !== "function" ||
      !(Number.isInteger(dispatcher["minItems"]) && (dispatcher["minItems"] as number) >= 1)
    )
      fail(where, "mapDispatcher", dispatcher, "a { minItems (an integer ≥ 1), dispatch(request) } object");
    if (cp === undefined)
      fail(where, "mapDispatcher", dispatcher, "used with a checkpointer (dispatched items run on it)");
  }
  const upgrade = options["upgrade"];
  if (upgrade !== undefined && (!isRecord(upgrade) || typeof upgrade["prepare"] !== "function" || cp === undefined))
    fail(where, "upgrade", upgrade, "a { prepare(context) } object (upgrades() of @graph/upgrade) with a checkpointer");
  const signal = options["permitSignal"];
  if (signal !== undefined) {
    if (!isRecord(signal) || typeof signal["notify"] !== "function" || typeof signal["subscribe"] !== "function")
      fail(where, "permitSignal", signal, "a PermitSignal ({ notify(key), subscribe(key, onReleased) })");
    if (cp === undefined)
      fail(where, "permitSignal", signal, "used with a checkpointer (it signals the store's permits)");
  }
  if (options["owner"] !== undefined && (typeof options["owner"] !== "string" || options["owner"] === ""))
    fail(where, "owner", options["owner"], "a non-empty string");
  checkHousekeeping(where, options["housekeeping"]);
}

const HOUSEKEEPING_KEYS = new Set(["intervalMs", "batchSize"]);

function checkHousekeeping(where: string, housekeeping: unknown): void {
  if (housekeeping === undefined || housekeeping === false) return;
  if (!isRecord(housekeeping)) fail(where, "housekeeping", housekeeping, "false or { intervalMs?, batchSize? }");
  for (const key of Object.keys(housekeeping))
    if (!HOUSEKEEPING_KEYS.has(key))
      fail(where, `housekeeping.${key}`, housekeeping[key], `one of ${[...HOUSEKEEPING_KEYS].join(", ")}`);
  const { intervalMs, batchSize } = housekeeping;
  if (intervalMs !== undefined && !(typeof intervalMs === "number" && Number.isFinite(intervalMs) && intervalMs >= 100))
    fail(where, "housekeeping.intervalMs", intervalMs, "a number of milliseconds ≥ 100");
  if (
    batchSize !== undefined &&
    !(Number.isInteger(batchSize) && (batchSize as number) >= 1 && (batchSize as number) <= 10_000)
  )
    fail(where, "housekeeping.batchSize", batchSize, "an integer from 1 to 10000");
}

/** `runner.run / start / stream / runSync / map` options shared by all of them. */
export function checkRunOptions(options: unknown, method: string): void {
  const where = `runner.${method}()`;
  if (options === undefined) return;
  if (!isRecord(options)) fail(where, "options", options, "an options object ({ values?, workflowId?, … })");
  const values = options["values"];
  if (values !== undefined && !isRecord(values)) fail(where, "values", values, "an object of named values");
  checkBudget(where, "budget", options["budget"]);
  if (isRecord(values) && Object.hasOwn(values, BUDGET_KEY))
    checkBudget(where, `values['${BUDGET_KEY}']`, values[BUDGET_KEY], "the amounts to add to the budget, e.g.");
  const id = options["workflowId"];
  if (id !== undefined && (typeof id !== "string" || id === "")) fail(where, "workflowId", id, "a non-empty string");
  const tooLong = typeof id === "string" ? workflowIdTooLong(id) : undefined;
  if (tooLong !== undefined)
    throw new InvalidOptionError(`${where}: option 'workflowId' is too long. ${tooLong}`, "workflowId");
  const signal = options["signal"];
  if (
    signal !== undefined &&
    !(
      isRecord(signal) &&
      typeof signal["aborted"] === "boolean" &&
      typeof signal["addEventListener"] === "function" &&
      typeof signal["removeEventListener"] === "function"
    )
  )
    fail(where, "signal", signal, "an AbortSignal (new AbortController().signal)");
  const explain = options["explain"];
  if (explain !== undefined && typeof explain !== "boolean") fail(where, "explain", explain, "true or false");
  const select = options["select"];
  if (
    select !== undefined &&
    typeof select !== "string" &&
    !(Array.isArray(select) && select.every((s) => typeof s === "string"))
  )
    fail(where, "select", select, "a select pattern string or an array of them");
  const max = options["maxIterations"];
  if (max !== undefined && !(Number.isInteger(max) && (max as number) >= 1))
    fail(where, "maxIterations", max, "an integer ≥ 1");
  const wait = options["waitForLease"];
  if (
    wait !== undefined &&
    typeof wait !== "boolean" &&
    !(typeof wait === "number" && Number.isFinite(wait) && wait >= 0)
  )
    fail(where, "waitForLease", wait, "true, false or a number of ms ≥ 0");
  const bufferSize = options["eventBufferSize"];
  if (bufferSize !== undefined && !(Number.isInteger(bufferSize) && (bufferSize as number) >= 1))
    fail(where, "eventBufferSize", bufferSize, "an integer ≥ 1");
  const handling = options["errorHandling"];
  if (handling !== undefined && handling !== "raise" && handling !== "continue")
    fail(where, "errorHandling", handling, '"raise" or "continue"');
  const unknownValues = options["unknownValues"];
  if (unknownValues !== undefined && unknownValues !== "error" && unknownValues !== "ignore")
    fail(where, "unknownValues", unknownValues, '"error" or "ignore"');
  for (const key of ["force", "recover"])
    if (options[key] !== undefined && typeof options[key] !== "boolean") fail(where, key, options[key], "a boolean");
  const answering = options["answering"];
  if (answering !== undefined) {
    const visit = isRecord(answering) ? answering["visit"] : undefined;
    if (
      !isRecord(answering) ||
      typeof answering["nodeName"] !== "string" ||
      answering["nodeName"] === "" ||
      !(typeof visit === "number" && Number.isSafeInteger(visit) && visit >= -1)
    )
      fail(
        where,
        "answering",
        answering,
        "the pause the values answer: result.pause of the run that paused ({ nodeName, visit }; only pauses of runs with a checkpointer have a visit)",
      );
    if (id === undefined) fail(where, "answering", answering, "used with the workflowId of the paused workflow");
  }
  const cp = options["checkpoint"];
  if (cp !== undefined && !(isRecord(cp) && Array.isArray(cp["steps"])))
    fail(where, "checkpoint", cp, "a Checkpoint (from checkpointer.getCheckpoint / listCheckpoints)");
}

const BUDGET_FIELDS = new Set(["tokens", "costUsd", "calls", "wallMs"]);

/** A budget (or a grant): an object of finite numbers ≥ 0 under `tokens`, `costUsd`, `calls`, `wallMs`. */
export function checkBudget(where: string, option: string, budget: unknown, what = "a budget, e.g."): void {
  if (budget === undefined) return;
  const expected = `${what} { tokens: 50_000, costUsd: 2 } (fields: tokens, costUsd, calls, wallMs; each a finite number ≥ 0)`;
  if (!isRecord(budget)) fail(where, option, budget, expected);
  for (const [k, v] of Object.entries(budget)) {
    if (!BUDGET_FIELDS.has(k)) fail(where, `${option}.${k}`, v, `one of ${expected}`);
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) fail(where, `${option}.${k}`, v, "a finite number ≥ 0");
  }
}

/** `runMapItem` options: what a dispatcher copies from the request, checked before anything is written. */
export function checkMapItemOptions(options: unknown): void {
  const where = "runMapItem()";
  if (!isRecord(options)) fail(where, "options", options, "the options of one item of a MapDispatchRequest");
  for (const key of ["workflowId", "parentWorkflowId"]) {
    const v = options[key];
    if (typeof v !== "string" || v === "") fail(where, key, v, "a non-empty string");
  }
  for (const key of ["values", "parentVersions"])
    if (!isRecord(options[key])) fail(where, key, options[key], "an object (copy it from the MapDispatchRequest)");
  const fence = options["fence"];
  if (!isRecord(fence) || !Number.isInteger(fence["epoch"]) || typeof fence["workflowId"] !== "string")
    fail(where, "fence", fence, "the request's fence ({ epoch, workflowId })");
  const max = options["maxIterations"];
  if (!(Number.isInteger(max) && (max as number) >= 1)) fail(where, "maxIterations", max, "an integer ≥ 1");
  if (options["onEvent"] !== undefined && typeof options["onEvent"] !== "function")
    fail(where, "onEvent", options["onEvent"], "a function (event) => void");
}

/** `runner.map` options on top of the run options. */
export function checkMapOptions(options: unknown): void {
  const where = "runner.map()";
  if (!isRecord(options)) fail(where, "options", options, "an options object ({ mapOver, values, … })");
  checkRunOptions(options, "map");
  const mapOver = options["mapOver"];
  if (
    !(typeof mapOver === "string" && mapOver !== "") &&
    !(Array.isArray(mapOver) && mapOver.length > 0 && mapOver.every((m) => typeof m === "string" && m !== ""))
  )
    fail(where, "mapOver", mapOver, "an input name or a non-empty array of input names");
  const mode = options["mapMode"];
  if (mode !== undefined && mode !== "zip" && mode !== "product") fail(where, "mapMode", mode, '"zip" or "product"');
  const max = options["maxConcurrency"];
  if (max !== undefined && !(Number.isInteger(max) && (max as number) >= 1))
    fail(where, "maxConcurrency", max, "an integer ≥ 1");
}

/** The lease options together: the renewal must come well inside the lease, the stop poll no later than a renewal. */
function checkLeaseTiming(where: string, options: Record<string, unknown>): void {
  for (const key of ["leaseRenewIntervalMs", "stopPollIntervalMs"]) {
    const v = options[key];
    if (v !== undefined && !(typeof v === "number" && Number.isFinite(v) && v >= 10))
      fail(where, key, v, "a number of milliseconds ≥ 10");
  }
  const { ttlMs, renewEveryMs } = leaseTiming(options);
  if (renewEveryMs > ttlMs / 2) {
    throw new InvalidOptionError(
      `${where}: option 'leaseRenewIntervalMs' (${renewEveryMs} ms) must be at most half of 'leaseTtlMs' (${ttlMs} ms): ` +
        "a renewal that comes later risks the lease expiring between two renewals.\n" +
        `  How to fix: pass leaseRenewIntervalMs ≤ ${Math.floor(ttlMs / 2)} (default: a third of leaseTtlMs), or raise leaseTtlMs.`,
      "leaseRenewIntervalMs",
    );
  }
}

/** Lease timing of a runner: TTL (default 30 s), renewal (default TTL / 3) and stop poll (default min(1 s, renewal)). */
export function leaseTiming(options: {
  readonly leaseTtlMs?: unknown;
  readonly leaseRenewIntervalMs?: unknown;
  readonly stopPollIntervalMs?: unknown;
}): LeaseTiming {
  const ttlMs = typeof options.leaseTtlMs === "number" ? options.leaseTtlMs : 30_000;
  const renewEveryMs =
    typeof options.leaseRenewIntervalMs === "number"
      ? options.leaseRenewIntervalMs
      : Math.max(10, Math.floor(ttlMs / 3));
  const stopPollMs =
    typeof options.stopPollIntervalMs === "number" ? options.stopPollIntervalMs : Math.min(1000, renewEveryMs);
  return { ttlMs, renewEveryMs, stopPollMs };
}
