import { MemoryCheckpointer } from "@graph/checkpoint";
import { describeCheckpointer } from "../src/index.js";

describeCheckpointer({ name: "memory", create: (options) => new MemoryCheckpointer(options) });
