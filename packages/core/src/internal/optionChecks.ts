// Shape checks for the options of the public builders, run before any option is used: untyped callers (plain
// JavaScript, options read from JSON) pass anything, and each wrong shape must be a GraphConfigError that names the
// option, what it got and what to write instead — never a TypeError from deep inside.
import type * as z from "zod";
import { GraphConfigError } from "../errors.js";
import type { RetryOptions } from "../NodeContext.js";
import type { NodeOptions } from "../node.js";
import { foreignProtocol } from "./brand.js";
import { describeValue, isPlainRecord } from "./describe.js";

/** Anything with a `safeParse` method counts as a zod schema (zod 3 and 4 alike, any copy of zod). */
export function isZodSchema(value: unknown): value is z.ZodType {
  return (
    typeof value === "object" && value !== null && typeof (value as { safeParse?: unknown }).safeParse === "function"
  );
}

/** Why item `i` of a node list is not a node, with the likely fix. */
export function notANode(i: number, value: unknown): GraphConfigError {
  const foreign = foreignProtocol(value, "node");
  if (foreign !== undefined) {
    const name = (value as { name?: unknown }).name;
    return new GraphConfigError(
      `Item ${i} of the node list (${typeof name === "string" ? `node '${name}'` : describeValue(value)}) can't be used: ${foreign}.\n` +
        "  How to fix: make every package resolve the same @graph/core (`npm ls @graph/core`, then pnpm dedupe / npm dedupe).",
      typeof name === "string" ? { where: name } : {},
    );
  }
  // Without the brand but shaped like a node: a copy of @graph/core from before nodes were branded.
  const lookalike =
    typeof value === "object" && value !== null && typeof (value as { nodeType?: unknown }).nodeType === "string";
  const hint = lookalike
    ? "\n  → It looks like a node from another copy of @graph/core; nodes and graphs must come from one copy.\n  How to fix: make every package resolve the same @graph/core (e.g. pnpm dedupe / npm dedupe)."
    : "\n  How to fix: wrap functions with node(), route(), ifElse() or interrupt(); nest graphs with graph.asNode().";
  return new GraphConfigError(`Item ${i} of the node list is not a node (got ${describeValue(value)}).${hint}`);
}

export function checkBooleanOption(where: string, key: string, value: unknown): void {
  if (value !== undefined && typeof value !== "boolean") {
    throw new GraphConfigError(
      `${where}: option '${key}' must be true or false, got ${describeValue(value)}.\n  How to fix: pass ${key}: true, ${key}: false, or leave it out.`,
    );
  }
}

/** Every explicit edge is `[from, to]` or `[from, to, ["value", …]]` with string names. */
export function checkEdgeShapes(edges: readonly unknown[], where: string): void {
  edges.forEach((def, i) => {
    const ok =
      Array.isArray(def) &&
      (def.length === 2 || def.length === 3) &&
      typeof def[0] === "string" &&
      typeof def[1] === "string" &&
      (def[2] === undefined || (Array.isArray(def[2]) && def[2].every((v: unknown) => typeof v === "string")));
    if (!ok) {
      throw new GraphConfigError(
        `Explicit edge ${i} in ${where} is not [from, to] or [from, to, ["value", …]] with node and value names as strings (got ${describeValue(def)}).\n  How to fix: edges: [["load", "process"], ["load", "report", ["summary"]]].`,
      );
    }
  });
}

/** The shape of every option of `node()`, before any of them is used (untyped callers pass anything). */
export function checkNodeOptions(name: string, options: NodeOptions): void {
  const fail = (key: string, value: unknown, expected: string, example: string) =>
    new GraphConfigError(
      `Node '${name}': option '${key}' must be ${expected}, got ${describeValue(value)}.\n  How to fix: ${example}.`,
      { where: name },
    );
  const { output, defaults, outputSchema, cache, cacheKey, retry, timeoutMs, concurrency, rateLimit, frames, gather } =
    options;
  if (
    output !== undefined &&
    typeof output !== "string" &&
    !(Array.isArray(output) && output.every((o: unknown) => typeof o === "string"))
  )
    throw fail(
      "output",
      output,
      "an output name or an array of output names",
      'output: "answer" or output: ["first", "second"]',
    );
  if (defaults !== undefined && !isPlainRecord(defaults))
    throw fail("defaults", defaults, "an object of input defaults", "defaults: { topK: 5 }");
  if (outputSchema !== undefined && !isZodSchema(outputSchema)) {
    const record = isPlainRecord(outputSchema) ? (outputSchema as Readonly<Record<string, unknown>>) : undefined;
    const badKey = record === undefined ? undefined : Object.keys(record).find((k) => !isZodSchema(record[k]));
    if (record === undefined || badKey !== undefined)
      throw fail(
        badKey === undefined ? "outputSchema" : `outputSchema.${badKey}`,
        record === undefined ? outputSchema : record[badKey!],
        record === undefined ? "a zod schema or a record of zod schemas by output name" : "a zod schema",
        "outputSchema: z.string(), or outputSchema: { first: z.number() } for several outputs",
      );
  }
  if (cache !== undefined && typeof cache !== "boolean") throw fail("cache", cache, "true or false", "cache: true");
  if (cacheKey !== undefined && typeof cacheKey !== "function")
    throw fail("cacheKey", cacheKey, "a function of the inputs", "cacheKey: ({ doc }) => doc.id");
  if (cacheKey !== undefined && cache !== true)
    throw new GraphConfigError(
      `Node '${name}': option 'cacheKey' only applies to a cached node, and 'cache' is not true.\n` +
        "  How to fix: add cache: true, or remove cacheKey.",
      { where: name },
    );
  if (gather !== undefined && typeof gather !== "boolean")
    throw fail("gather", gather, "true or false", "gather: true");
  if (frames !== undefined && typeof frames !== "boolean") {
    const example = "frames: { window: 16 } (at most 16 frames unfinished at once), or frames: true";
    if (!isPlainRecord(frames) || Object.keys(frames).some((k) => k !== "window"))
      throw fail("frames", frames, "true, false or { window }", example);
    if (frames.window !== undefined && !isLimit(frames.window))
      throw fail("frames.window", frames.window, "an integer ≥ 1", example);
  }
  if (timeoutMs !== undefined && !(typeof timeoutMs === "number" && timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS))
    throw fail("timeoutMs", timeoutMs, `a number of milliseconds > 0 and ≤ ${MAX_TIMER_MS}`, "timeoutMs: 30_000");
  if (retry !== undefined) checkRetry(retry, fail);
  if (concurrency !== undefined) checkConcurrency(concurrency, fail);
  if (rateLimit !== undefined) checkRateLimit(rateLimit, fail);
}

type Fail = (key: string, value: unknown, expected: string, example: string) => GraphConfigError;

const isLimit = (n: unknown) => typeof n === "number" && Number.isSafeInteger(n) && n >= 1;

function checkScope(option: string, scope: unknown, fail: Fail, example: string): void {
  if (scope !== undefined && (typeof scope !== "string" || scope === ""))
    throw fail(`${option}.scope`, scope, "a non-empty string (nodes with the same scope share the limit)", example);
}

function checkRateLimit(rateLimit: unknown, fail: Fail): void {
  const example = 'rateLimit: { limit: 60, per: "1m" }, or { key: ({ tenantId }) => tenantId, limit: 20, per: "1s" }';
  if (!isPlainRecord(rateLimit))
    throw fail("rateLimit", rateLimit, "an object ({ limit, per, key?, scope? })", example);
  const { key, limit, per, scope, ...rest } = rateLimit as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined)
    throw fail(`rateLimit.${extra}`, rest[extra], "absent (the options are limit, per, key and scope)", example);
  if (key !== undefined && typeof key !== "function")
    throw fail("rateLimit.key", key, "a function of the node's inputs", example);
  if (!isLimit(limit)) throw fail("rateLimit.limit", limit, "an integer ≥ 1", example);
  if (per === undefined) throw fail("rateLimit.per", per, 'a window such as "1s" or "1m"', example);
  checkScope("rateLimit", scope, fail, example);
}

function checkConcurrency(concurrency: unknown, fail: Fail): void {
  const example = "concurrency: 2, or concurrency: { key: ({ tenantId }) => tenantId, limit: 2 } for a limit per key";
  if (typeof concurrency === "number") {
    if (!isLimit(concurrency)) throw fail("concurrency", concurrency, "an integer ≥ 1", example);
    return;
  }
  if (!isPlainRecord(concurrency)) throw fail("concurrency", concurrency, "an integer ≥ 1 or { key, limit }", example);
  const { key, limit, scope, ...rest } = concurrency as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined)
    throw fail(`concurrency.${extra}`, rest[extra], "absent (the options are key, limit and scope)", example);
  if (typeof key !== "function") throw fail("concurrency.key", key, "a function of the node's inputs", example);
  if (!isLimit(limit)) throw fail("concurrency.limit", limit, "an integer ≥ 1", example);
  checkScope("concurrency", scope, fail, example);
}

/** The longest delay a Node.js timer can hold (about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

function checkRetry(
  retry: unknown,
  fail: (key: string, value: unknown, expected: string, example: string) => GraphConfigError,
): void {
  const example = 'retry: { attempts: 3, initialDelayMs: 100, backoff: "exponential" }';
  if (!isPlainRecord(retry)) throw fail("retry", retry, "an object ({ attempts, … })", example);
  const { attempts, initialDelayMs, maxDelayMs, backoff, retryOn } = retry as Partial<RetryOptions>;
  if (!(typeof attempts === "number" && Number.isInteger(attempts) && attempts >= 1))
    throw fail("retry.attempts", attempts, "an integer ≥ 1", example);
  for (const [key, value] of [
    ["initialDelayMs", initialDelayMs],
    ["maxDelayMs", maxDelayMs],
  ] as const) {
    if (value !== undefined && !(typeof value === "number" && value >= 0 && value <= MAX_TIMER_MS))
      throw fail(`retry.${key}`, value, `a number of milliseconds ≥ 0 and ≤ ${MAX_TIMER_MS}`, example);
  }
  if (backoff !== undefined && backoff !== "exponential" && backoff !== "linear" && backoff !== "constant")
    throw fail("retry.backoff", backoff, '"exponential", "linear" or "constant"', example);
  if (retryOn !== undefined && typeof retryOn !== "function")
    throw fail(
      "retry.retryOn",
      retryOn,
      "a function (error) => boolean",
      "retry: { attempts: 3, retryOn: (e) => !isFatal(e) }",
    );
}
