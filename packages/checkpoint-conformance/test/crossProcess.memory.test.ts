import { MemoryCheckpointer } from "@graph/checkpoint";
import { describeDueWake } from "../src/index.js";

// In memory the "other process" is a second runner on the same instance (closed after it paused).
describeDueWake({ name: "memory", create: (options) => new MemoryCheckpointer(options) });
