import { mergeConfig } from "vitest/config";
import { vitestConfig } from "../../vitest.shared.ts";

// One file at a time: every file forks worker processes, and the SIGKILL/lease tests need the cores they wait on.
export default mergeConfig(vitestConfig({ fileParallelism: false }), {
  test: { globalSetup: ["./test/globalSetup.ts"] },
});
