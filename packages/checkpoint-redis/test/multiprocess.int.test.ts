import { fileURLToPath } from "node:url";
import { runTogether as runWorkers } from "@graph/checkpoint-conformance";
import { afterAll, describe, expect, it } from "vitest";
import { RedisCheckpointer } from "../src/index.js";
import { clearPrefixes, randomPrefix, redisUrl } from "./fixtures/store.js";

const workerScript = fileURLToPath(new URL("./fixtures/worker.ts", import.meta.url));
const runTogether = (argsList: readonly (readonly string[])[]) => runWorkers(workerScript, argsList);

const prefixes: string[] = [];
afterAll(() => clearPrefixes(prefixes));

describe("RedisCheckpointer shared by several processes", () => {
  it("concurrent claims of one workflow from 4 processes: exactly one wins, 25 rounds in a row", async () => {
    const prefix = randomPrefix("mp-claim");
    prefixes.push(prefix);
    const rounds = 25;
    const seed = new RedisCheckpointer({ url: redisUrl(), prefix });
    for (let round = 0; round < rounds; round++) {
      await seed.createWorkflow({ id: `race-${round}`, graphName: "g", graphHash: "h" });
    }
    const results = await runTogether(
      [0, 1, 2, 3].map((n) => ["claim", redisUrl(), prefix, String(rounds), "60", `owner-${n}`]),
    );
    for (const result of results) expect(result["fatal"]).toBeUndefined();
    const perProcess = results.map((r) => r["results"] as string[]);
    for (let round = 0; round < rounds; round++) {
      const outcomes = perProcess.map((list) => list[round]);
      expect(
        outcomes.filter((o) => o === "won:1"),
        `round ${round}: ${outcomes.join(", ")}`,
      ).toHaveLength(1);
      expect(
        outcomes.filter((o) => o === "lost"),
        `round ${round}: ${outcomes.join(", ")}`,
      ).toHaveLength(3);
    }
    for (let round = 0; round < rounds; round++) {
      const lease = (await seed.getWorkflow(`race-${round}`))?.lease;
      expect(lease?.epoch).toBe(1);
      expect(perProcess[Number(lease?.owner.slice("owner-".length))]?.[round]).toBe("won:1");
    }
    await seed.close();
  }, 90_000);

  it("4 processes writing steps into one workflow at once: every step stored once, counters exact", async () => {
    const prefix = randomPrefix("mp-write");
    prefixes.push(prefix);
    const seed = new RedisCheckpointer({ url: redisUrl(), prefix });
    await seed.createWorkflow({ id: "shared", graphName: "g", graphHash: "h" });
    const count = 150;
    const results = await runTogether(
      [0, 1, 2, 3].map((slot) => ["write", redisUrl(), prefix, "shared", String(count), String(slot)]),
    );
    for (const result of results) expect(result["written"], String(result["fatal"])).toBe(count);
    const steps = await seed.getSteps("shared");
    expect(steps.map((s) => s.index)).toEqual(Array.from({ length: 4 * count }, (_, i) => i));
    const workflow = await seed.getWorkflow("shared");
    expect(workflow?.stepCount).toBe(4 * count);
    expect(workflow?.lastSuperstep).toBe(count - 1);
    expect(await seed.getState("shared")).toEqual({ v0: count - 1, v1: count - 1, v2: count - 1, v3: count - 1 });
    await seed.close();
  }, 90_000);
});
