import { mergeConfig } from "vitest/config";
import { vitestConfig } from "../../vitest.shared.ts";

// Redis for the Redis scenarios: REDIS_URL, or a redis-server the global setup starts (and stops by its PID).
export default mergeConfig(vitestConfig({ testTimeout: 60_000, typecheck: true }), {
  test: { globalSetup: ["./test/globalSetup.ts"] },
});
