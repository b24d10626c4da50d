/**
 * Repeating the kit's timing tests to measure them: `GRAPH_CONFORMANCE_TRIALS=<n>` runs each timed scenario n times
 * (every trial is still checked against its bound), and `GRAPH_CONFORMANCE_REPORT=<file>` appends one JSON line per
 * test with what was measured (trials, max, p50), for release notes and issue reports.
 */
import fs from "node:fs";

/** How many times a timed scenario runs (default 1). */
export function trialCount(): number {
  return Math.max(1, Math.floor(Number(process.env["GRAPH_CONFORMANCE_TRIALS"] ?? 1)) || 1);
}

/** Appends the figures of one test to the report file, when one is asked for. */
export function reportTrials(label: string, valuesMs: readonly number[]): void {
  const file = process.env["GRAPH_CONFORMANCE_REPORT"];
  if (file === undefined || file === "" || valuesMs.length === 0) return;
  const sorted = [...valuesMs].sort((a, b) => a - b);
  const line = {
    label,
    trials: sorted.length,
    maxMs: sorted[sorted.length - 1],
    p50Ms: sorted[Math.floor(sorted.length / 2)],
    valuesMs: sorted,
  };
  fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
}
