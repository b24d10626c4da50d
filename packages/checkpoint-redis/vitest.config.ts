import { mergeConfig } from "vitest/config";
import { vitestConfig } from "../../vitest.shared.ts";

// Files side by side even on 2 cores: the conformance processes file and the multi-process tests mostly wait
// (children, leases, Redis), so more workers overlap them with the rest.
export default mergeConfig(vitestConfig({ maxWorkers: 3 }), { test: { globalSetup: ["./test/globalSetup.ts"] } });
