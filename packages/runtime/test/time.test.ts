import { MemoryCheckpointer } from "@graph/checkpoint";
import { describeTimeScenarios } from "./workflows/time.js";

describeTimeScenarios("the memory checkpointer", () => new MemoryCheckpointer(), "store");
