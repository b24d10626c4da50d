import { MemoryCheckpointer } from "@graph/checkpoint";
import { describe, it } from "vitest";
import { workflowIdLengthIsLimited } from "./workflows/workflowIdLength.js";

describe("workflow ids are limited to 1,024 UTF-8 bytes (MemoryCheckpointer)", () => {
  it("longer ids fail up front with the limit and the actual length; 1,024 bytes run", () =>
    workflowIdLengthIsLimited(new MemoryCheckpointer({ policy: { durability: "sync" } })));
});
