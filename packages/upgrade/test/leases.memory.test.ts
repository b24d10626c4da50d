import { MemoryCheckpointer } from "@graph/checkpoint";
import { describeUpgradeUnderLease } from "./support/underLease.js";

describeUpgradeUnderLease("memory", { open: () => new MemoryCheckpointer() });
