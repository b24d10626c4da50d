import { afterAll, describe, it } from "vitest";
// The runtime's conflict matrix, run on this adapter (the runtime can't depend on its adapters).
import { loserWritesNothing } from "../../runtime/test/workflows/loserWritesNothing.js";
import { RedisCheckpointer } from "../src/index.js";
import { clearPrefixes, randomPrefix, redisUrl } from "./fixtures/store.js";

const prefixes: string[] = [];
afterAll(() => clearPrefixes(prefixes));

describe("a caller that does not hold the lease writes nothing (Redis, two checkpointers on one prefix)", () => {
  for (const durability of ["sync", "async", "exit"] as const) {
    it(`live holder / completed / failed / paused × every entry that fails before the claim (${durability})`, () => {
      const prefix = randomPrefix("loser");
      prefixes.push(prefix);
      const policy = { durability, ...(durability === "exit" ? { retention: "latest" as const } : {}) };
      const open = () => new RedisCheckpointer({ url: redisUrl(), prefix, policy });
      return loserWritesNothing({ holder: open(), loser: open() }, `loser-${durability}`);
    });
  }
});
