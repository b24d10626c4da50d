import { MemoryCheckpointer } from "@graph/checkpoint";
import { describeUpgradeScenarios } from "./support/scenarios.js";

describeUpgradeScenarios("memory", () => new MemoryCheckpointer());
