import { vitestConfig } from "../../vitest.shared.ts";

export default vitestConfig({ testTimeout: 120_000, fileParallelism: false });
