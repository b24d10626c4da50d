import { defineConfig, mergeConfig } from "vitest/config";
import { vitestConfig } from "../../vitest.shared.ts";

/**
 * Two groups of files, each one file at a time (every file forks worker processes, and the SIGKILL/lease tests need
 * the cores they wait on), the two groups side by side: the tests that measure time (throughput, fairness, rate
 * windows, schedules, timers, zombie leases) beside the rest, which mostly wait on processes and leases. One run,
 * one report.
 */
const timed = [
  "test/throughput.int.test.ts",
  "test/flowControl.int.test.ts",
  "test/fairness.int.test.ts",
  "test/runLimits.int.test.ts",
  "test/schedules.int.test.ts",
  "test/time.int.test.ts",
  "test/zombie.int.test.ts",
];

function group(name: string, files: { include?: string[]; exclude?: string[] }) {
  const config = mergeConfig(vitestConfig({ fileParallelism: false }), {
    test: { name, exclude: files.exclude ?? [], globalSetup: ["./test/globalSetup.ts"] },
  });
  // mergeConfig concatenates arrays: the group's own files replace the shared include.
  if (files.include !== undefined) config.test!.include = files.include;
  return config;
}

export default mergeConfig(
  vitestConfig(),
  defineConfig({
    test: {
      projects: [group("timed", { include: timed }), group("pool", { exclude: timed })],
    },
  }),
);
