import { mergeConfig } from "vitest/config";
import { vitestConfig } from "../../vitest.shared.ts";

/**
 * The queue tests that measure time (throughput, fairness, rate windows, schedules, timers, a frozen worker's
 * lease): their own vitest run, one file at a time, with its own report — `npm test` runs it beside the rest of the
 * package's tests, which mostly wait on processes and leases, instead of after them.
 */
export const TIMED_TESTS = [
  "test/throughput.int.test.ts",
  "test/flowControl.int.test.ts",
  "test/fairness.int.test.ts",
  "test/runLimits.int.test.ts",
  "test/schedules.int.test.ts",
  "test/time.int.test.ts",
  "test/zombie.int.test.ts",
];

const config = mergeConfig(vitestConfig({ fileParallelism: false }), {
  test: { globalSetup: ["./test/globalSetup.ts"], outputFile: { json: "reports/vitest-timed.json" } },
});
// mergeConfig concatenates arrays: these files replace the shared include.
config.test!.include = TIMED_TESTS;
export default config;
