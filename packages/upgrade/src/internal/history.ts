import { INPUT_STEP, type StepRecord } from "@graph/checkpoint";

/** A stored value with its version (the index of the step that wrote it). */
export interface StoredValue {
  readonly value: unknown;
  readonly version: number;
}

/** What the assessment reads from a workflow's history. */
export interface History {
  /** The fold of the steps' values (completed steps and steps that wrote values), in index order. */
  readonly state: ReadonlyMap<string, StoredValue>;
  /** Each node's last step (input records left out). */
  readonly last: ReadonlyMap<string, StepRecord>;
  /** The next free step index. */
  readonly nextIndex: number;
}

/** Reads `steps` (input records included) the way the runtime folds them. */
export function readHistory(steps: readonly StepRecord[]): History {
  const sorted = [...steps].sort((a, b) => a.index - b.index);
  const state = new Map<string, StoredValue>();
  const last = new Map<string, StepRecord>();
  let nextIndex = 0;
  for (const s of sorted) {
    nextIndex = Math.max(nextIndex, s.index + 1);
    if (s.nodeName !== INPUT_STEP) last.set(s.nodeName, s);
    if (s.status !== "completed" && Object.keys(s.values).length === 0) continue;
    for (const [k, value] of Object.entries(s.values)) state.set(k, { value, version: s.index });
  }
  return { state, last, nextIndex };
}

/** A short, readable form of a stored value for messages. */
export function describeValue(value: unknown): string {
  const type = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return `${type === "object" ? "an object" : type === "string" ? "a string" : type} ${text.length > 40 ? `${text.slice(0, 37)}…` : text}`;
}
