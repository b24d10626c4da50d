import { mergeConfig } from "vitest/config";
import { vitestConfig } from "../../vitest.shared.ts";
import { TIMED_TESTS } from "./vitest.timed.config.ts";

// One file at a time: every file forks worker processes, and the SIGKILL/lease tests need the cores they wait on.
// The tests that measure time run as a second vitest run (vitest.timed.config.ts), beside this one.
export default mergeConfig(vitestConfig({ fileParallelism: false }), {
  test: { exclude: TIMED_TESTS, globalSetup: ["./test/globalSetup.ts"] },
});
