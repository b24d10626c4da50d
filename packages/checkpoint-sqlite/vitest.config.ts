import { vitestConfig } from "../../vitest.shared.ts";

// Files side by side even on 2 cores: the conformance processes file and the multi-process tests mostly wait
// (children, leases, the database), so a second worker overlaps them with the rest.
export default vitestConfig({ maxWorkers: 3 });
