import { vitestConfig } from "../../vitest.shared.ts";

// The cold-start check spawns a fresh `node`, which on a loaded machine can take several seconds.
export default vitestConfig({ testTimeout: 120_000 });
