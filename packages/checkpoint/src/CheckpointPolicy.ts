/**
 * How durable checkpointing is (when steps reach storage) and how much history is kept.
 *
 * | field | values | meaning |
 * |---|---|---|
 * | `durability` | `"sync"` | a step is written before the run continues |
 * | | `"async"` (default) | steps are queued and written in order by one background writer; nothing that finished is lost before a clean `close()` |
 * | | `"exit"` | steps are buffered per workflow and written when the run ends (`flush`); requires `retention: "latest"` |
 * | `retention` | `"full"` (default) | every step is kept |
 * | | `"latest"` | per node only the newest step, plus older steps whose values were never overwritten |
 * | | `"windowed"` | every step of the last `window` supersteps; older ones compacted like `latest` |
 * | `window` | positive integer | only with `windowed` (required there) |
 * | `ttlMs` | positive number | workflows not updated for this long (and not running) are deleted by housekeeping |
 *
 * @module
 */
import { CheckpointError } from "./errors.js";

/**
 * When steps are written: `sync`, `async` (default) or `exit`.
 *
 * @example
 * ```ts
 * const durability: Durability = "sync";
 * ```
 */
export type Durability = "sync" | "async" | "exit";

/**
 * How much step history is kept: `full` (default), `latest` or `windowed`.
 *
 * @example
 * ```ts
 * const retention: Retention = "latest";
 * ```
 */
export type Retention = "full" | "latest" | "windowed";

/**
 * A complete checkpoint policy. Build one with {@link resolvePolicy}, which fills defaults and rejects invalid
 * combinations.
 *
 * @example
 * ```ts
 * const policy: CheckpointPolicy = resolvePolicy({ retention: "windowed", window: 10, ttlMs: 86_400_000 });
 * ```
 */
export interface CheckpointPolicy {
  readonly durability: Durability;
  readonly retention: Retention;
  /** Number of most recent supersteps kept in full (only with `retention: "windowed"`). */
  readonly window?: number;
  /** Workflows not updated for this many milliseconds (and not running under a live lease) are deleted. */
  readonly ttlMs?: number;
}

/**
 * The default policy: `{ durability: "async", retention: "full" }`.
 *
 * @example
 * ```ts
 * import { DEFAULT_POLICY } from "@graph/checkpoint";
 * console.log(DEFAULT_POLICY.durability); // "async"
 * ```
 */
export const DEFAULT_POLICY: CheckpointPolicy = Object.freeze({ durability: "async", retention: "full" });

const DURABILITIES: readonly string[] = ["sync", "async", "exit"];
const RETENTIONS: readonly string[] = ["full", "latest", "windowed"];

function invalid(message: string, path: string): CheckpointError {
  return new CheckpointError({ message: `Invalid checkpoint policy: ${message}`, path, operation: "resolvePolicy" });
}

/**
 * Fills defaults (`async`, `full`) and validates a policy. When `durability` is `"exit"` and `retention` is not
 * given, retention defaults to `"latest"` (the only valid choice).
 *
 * @throws CheckpointError for an unknown durability/retention, `exit` without `latest`, `windowed` without a
 *   positive integer `window`, `window` without `windowed`, or a non-positive `ttlMs`.
 *
 * @example
 * ```ts
 * resolvePolicy(); // { durability: "async", retention: "full" }
 * resolvePolicy({ durability: "exit" }); // { durability: "exit", retention: "latest" }
 * resolvePolicy({ retention: "windowed", window: 5 });
 * ```
 */
export function resolvePolicy(partial: Partial<CheckpointPolicy> = {}): CheckpointPolicy {
  if (typeof partial !== "object" || partial === null || Array.isArray(partial)) {
    throw invalid(
      `policy must be an object like { durability: "async", retention: "full" }, got ${partial === null ? "null" : typeof partial}.`,
      "policy",
    );
  }
  const durability = partial.durability ?? DEFAULT_POLICY.durability;
  if (!DURABILITIES.includes(durability)) {
    throw invalid(`durability must be "sync", "async" or "exit", got ${JSON.stringify(durability)}.`, "durability");
  }
  const retention = partial.retention ?? (durability === "exit" ? "latest" : DEFAULT_POLICY.retention);
  if (!RETENTIONS.includes(retention)) {
    throw invalid(`retention must be "full", "latest" or "windowed", got ${JSON.stringify(retention)}.`, "retention");
  }
  if (durability === "exit" && retention !== "latest") {
    throw invalid(
      `durability "exit" requires retention "latest" (got "${retention}"). ` +
        `Use { durability: "exit", retention: "latest" }, or choose durability "sync" or "async".`,
      "retention",
    );
  }
  const { window, ttlMs } = partial;
  if (retention === "windowed") {
    if (window === undefined || !Number.isSafeInteger(window) || window <= 0) {
      throw invalid(
        `retention "windowed" requires a positive integer window (number of supersteps kept in full), ` +
          `got ${String(window)}. Example: { retention: "windowed", window: 10 }.`,
        "window",
      );
    }
  } else if (window !== undefined) {
    throw invalid(
      `window (${String(window)}) is only meaningful with retention "windowed" (got "${retention}"). ` +
        `Remove window or set retention: "windowed".`,
      "window",
    );
  }
  if (ttlMs !== undefined && !(typeof ttlMs === "number" && Number.isFinite(ttlMs) && ttlMs > 0)) {
    throw invalid(`ttlMs must be a positive number of milliseconds, got ${String(ttlMs)}.`, "ttlMs");
  }
  const policy: { -readonly [K in keyof CheckpointPolicy]: CheckpointPolicy[K] } = { durability, retention };
  if (window !== undefined) policy.window = window;
  if (ttlMs !== undefined) policy.ttlMs = ttlMs;
  return Object.freeze(policy);
}
