// How the Redis adapter stores a step's usage and an input record's budget: two more parts of the step's header, in
// the same hash field as the rest of the step (no new key, no new field, the same one HSET per step), only when the
// step has either — a step without them keeps the 11-part header earlier versions wrote, and those still read back.
import type { CheckpointError, StepRecord } from "@graph/checkpoint";
import { INPUT_STEP } from "@graph/checkpoint";
import { rejection, stepRecord } from "@graph/checkpoint-conformance";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { RedisCheckpointer } from "../src/index.js";
import { clearPrefixes, randomPrefix, redisUrl } from "./fixtures/store.js";

const prefixes: string[] = [];
const clients: Redis[] = [];
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await clearPrefixes(prefixes);
});

function open(): RedisCheckpointer {
  const prefix = randomPrefix("usage");
  prefixes.push(prefix);
  return new RedisCheckpointer({ url: redisUrl(), prefix });
}

function client(): Redis {
  const redis = new Redis(redisUrl());
  clients.push(redis);
  return redis;
}

const input = (id: string, index: number, fields: Partial<StepRecord> = {}): StepRecord =>
  stepRecord(id, { kind: "input", superstep: index, nodeName: INPUT_STEP, index, values: { q: index }, ...fields });
const node = (id: string, index: number, fields: Partial<StepRecord> = {}): StepRecord =>
  stepRecord(id, { superstep: index, nodeName: `n${index}`, index, values: { [`v${index}`]: index }, ...fields });

/** The JSON header of a stored step (the line after the written keys). */
const headerOf = (text: string | null): unknown[] => JSON.parse(String(text).split("\n")[1] ?? "null") as unknown[];

describe("RedisCheckpointer usage and budgets", () => {
  it("stores them as two more header parts of the step's own field, only when the step has one", async () => {
    const checkpointer = open();
    const p = checkpointer.prefix;
    const { lease } = await checkpointer.startWorkflow(
      { id: "wf", graphName: "g", graphHash: "h" },
      { owner: "a", ttlMs: 60_000 },
      [input("wf", 0, { turnStart: true, budget: { tokens: 50_000, costUsd: 2 } })],
    );
    const steps = [node("wf", 1, { usage: { tokens: 1_250, costUsd: 0.004, calls: 1, wallMs: 830 } }), node("wf", 2)];
    await checkpointer.saveSteps(steps, { epoch: lease.epoch });
    const redis = client();
    expect((await redis.keys(`${p}*`)).filter((key) => key.includes("{wf}")).sort()).toEqual([
      `${p}{wf}:o`,
      `${p}{wf}:s`,
      `${p}{wf}:w`,
    ]);
    expect((await redis.hkeys(`${p}{wf}:s`)).sort()).toEqual(["0:.input", "1:n1", "2:n2"]);
    const inputHeader = headerOf(await redis.hget(`${p}{wf}:s`, "0:.input"));
    expect(inputHeader.slice(11)).toEqual([0, { tokens: 50_000, costUsd: 2 }]);
    expect(headerOf(await redis.hget(`${p}{wf}:s`, "1:n1")).slice(11)).toEqual([
      { tokens: 1_250, costUsd: 0.004, calls: 1, wallMs: 830 },
      0,
    ]);
    expect(headerOf(await redis.hget(`${p}{wf}:s`, "2:n2"))).toHaveLength(11);
    expect(await checkpointer.getSteps("wf", { includeInputs: true })).toStrictEqual([
      input("wf", 0, { turnStart: true, budget: { tokens: 50_000, costUsd: 2 } }),
      ...steps,
    ]);
    await checkpointer.close();
  });

  it("a step an earlier version wrote (11-part header) reads back without usage; a corrupt usage is a CheckpointError", async () => {
    const checkpointer = open();
    const p = checkpointer.prefix;
    await checkpointer.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    await checkpointer.saveStep(node("wf", 0, { usage: { tokens: 7 } }));
    const redis = client();
    const stored = String(await redis.hget(`${p}{wf}:s`, "0:n0"));
    const [keys, header, ...rest] = stored.split("\n");
    const parts = JSON.parse(header ?? "[]") as unknown[];
    await redis.hset(`${p}{wf}:s`, "0:n0", [keys, JSON.stringify(parts.slice(0, 11)), ...rest].join("\n"));
    const [old] = await checkpointer.getSteps("wf");
    expect(old).toStrictEqual(node("wf", 0));
    expect(old !== undefined && "usage" in old).toBe(false);

    for (const bad of [{ tokens: -1 }, "7", { tokenz: 1 }]) {
      const corrupt = [...parts.slice(0, 11), bad, 0];
      await redis.hset(`${p}{wf}:s`, "0:n0", [keys, JSON.stringify(corrupt), ...rest].join("\n"));
      const error = (await rejection(checkpointer.getSteps("wf"))) as CheckpointError;
      expect(error._tag).toBe("CheckpointError");
      expect(error.path).toBe("step header");
      expect(error.message).toContain("Stored step header of workflow 'wf' (node 'n0') is corrupt");
    }
    await checkpointer.close();
  });
});
