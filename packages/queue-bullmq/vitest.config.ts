import { mergeConfig } from "vitest/config";
import { vitestConfig } from "../../vitest.shared.ts";

export default mergeConfig(vitestConfig(), { test: { globalSetup: ["./test/globalSetup.ts"] } });
