import { vitestConfig } from "../../vitest.shared.ts";

export default vitestConfig({ testTimeout: 180_000, fileParallelism: false });
