import { MemoryCheckpointer } from "@graph/checkpoint";
import { describeBudgetScenarios } from "./workflows/budget.js";

describeBudgetScenarios("the memory checkpointer", () => new MemoryCheckpointer());
describeBudgetScenarios("no checkpointer", () => undefined);
