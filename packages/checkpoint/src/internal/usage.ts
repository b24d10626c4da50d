/**
 * What a step spent (`usage`) and an input record's run budget (`budget`): the checks every backend applies before it
 * writes one, the canonical form it stores, and the check on what it reads back. One rule set, so memory, SQL and
 * Redis accept, refuse and return exactly the same records.
 */
import type { StepRecord, UsageRecord } from "../Checkpointer.js";

/** The fields of a {@link UsageRecord}, in the order they are stored. */
export const USAGE_FIELDS = ["tokens", "costUsd", "calls", "wallMs"] as const satisfies readonly (keyof UsageRecord)[];

/** The step fields that hold a {@link UsageRecord}. */
export type UsageField = "usage" | "budget";

const KNOWN: ReadonlySet<string> = new Set(USAGE_FIELDS);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** A short description of a bad amount for messages (never throws). */
function shown(value: unknown): string {
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 40))}`;
  if (typeof value === "bigint") return `the bigint ${String(value)}n`;
  if (value === null) return "null";
  return `a value of type ${Array.isArray(value) ? "array" : typeof value}`;
}

/**
 * What is wrong with `value` as a {@link UsageRecord}, or `undefined` when it is one: `path` is the offending part
 * (`usage`, `usage.tokens`, …) and `problem` says what it must be and what it was.
 *
 * @example
 * ```ts
 * usageProblem({ tokens: -1 }, "usage"); // { path: "usage.tokens", problem: "must be a finite number ≥ 0, got -1" }
 * ```
 */
export function usageProblem(
  value: unknown,
  field: UsageField,
): { readonly path: string; readonly problem: string } | undefined {
  if (!isPlainObject(value)) {
    return {
      path: field,
      problem: `must be a plain object { tokens?, costUsd?, calls?, wallMs? }, got ${shown(value)}`,
    };
  }
  for (const key of Object.keys(value)) {
    if (!KNOWN.has(key)) {
      return {
        path: `${field}.${key}`,
        problem: `is not a usage field (the fields are ${USAGE_FIELDS.join(", ")})`,
      };
    }
    const amount = value[key];
    if (amount === undefined) continue;
    if (typeof amount !== "number" || !Number.isFinite(amount) || amount < 0) {
      return { path: `${field}.${key}`, problem: `must be a finite number ≥ 0, got ${shown(amount)}` };
    }
  }
  return undefined;
}

/** Whether `value` is a {@link UsageRecord} (what a backend checks a record it reads back with). */
export function isUsageRecord(value: unknown): value is UsageRecord {
  return usageProblem(value, "usage") === undefined;
}

/**
 * The stored form of a (validated) usage record: its fields in {@link USAGE_FIELDS} order, fields set to `undefined`
 * left out, `-0` stored as `0` (JSON and every database keep no sign on zero). Reads back equal to what was given.
 *
 * @example
 * ```ts
 * normalizeUsage({ wallMs: 5, tokens: 10, calls: undefined }); // { tokens: 10, wallMs: 5 }
 * ```
 */
export function normalizeUsage(usage: UsageRecord): UsageRecord {
  const stored: Record<string, number> = {};
  for (const key of USAGE_FIELDS) {
    const amount = usage[key];
    if (amount !== undefined) stored[key] = amount === 0 ? 0 : amount;
  }
  return stored;
}

/** The normalised `usage` and `budget` of a step (`undefined`: absent), as every backend stores them. */
export function storedUsage(step: StepRecord): {
  readonly usage: UsageRecord | undefined;
  readonly budget: UsageRecord | undefined;
} {
  return {
    usage: step.usage === undefined ? undefined : normalizeUsage(step.usage),
    budget: step.budget === undefined ? undefined : normalizeUsage(step.budget),
  };
}
