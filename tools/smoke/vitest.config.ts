import { mergeConfig } from "vitest/config";
import { vitestConfig } from "../../vitest.shared.ts";

// The smoke file installs once (npm install) and shares it between its tests.
export default mergeConfig(vitestConfig({ testTimeout: 180_000 }), {
  test: { globalSetup: ["./test/globalSetup.ts"] },
});
