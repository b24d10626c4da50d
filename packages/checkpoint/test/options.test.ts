import { describe, expect, it } from "vitest";
import { isCheckpointError, MemoryCheckpointer, resolvePolicy } from "../src/index.js";

function thrown(body: () => unknown): unknown {
  try {
    body();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("option validation: tagged errors, never a raw TypeError", () => {
  it("MemoryCheckpointer rejects a non-object, a bad policy and a garbage serializer", () => {
    const cases: [() => unknown, RegExp, string][] = [
      [
        () => new MemoryCheckpointer(null as never),
        /options must be an object \{ policy\?, serializer\? \}, got null/,
        "options",
      ],
      [() => new MemoryCheckpointer(5 as never), /got number/, "options"],
      [() => new MemoryCheckpointer({ policy: "fast" as never }), /policy must be an object/, "policy"],
      [
        () => new MemoryCheckpointer({ serializer: {} as never }),
        /serializer must be an object with serialize/,
        "serializer",
      ],
      [() => new MemoryCheckpointer({ serializer: "json" as never }), /createSerializer/, "serializer"],
    ];
    for (const [attempt, message, path] of cases) {
      const error = thrown(attempt);
      expect(isCheckpointError(error)).toBe(true);
      expect((error as Error).message).toMatch(message);
      expect(error).toMatchObject({ path });
    }
  });

  it("resolvePolicy(null) is a CheckpointError", () => {
    const error = thrown(() => resolvePolicy(null as never));
    expect(isCheckpointError(error)).toBe(true);
    expect((error as Error).message).toMatch(/policy must be an object/);
  });
});
