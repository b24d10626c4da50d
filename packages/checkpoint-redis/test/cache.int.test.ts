import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { scriptCommand } from "@graph/checkpoint-conformance";
import { afterAll, describe, it } from "vitest";
import { cacheSharedByTwoProcesses, sameKeyAtOnce } from "../../runtime/test/workflows/sharedCache.js";
import { RedisCheckpointer } from "../src/index.js";
import { clearPrefixes, randomPrefix, redisUrl } from "./fixtures/store.js";

const prefixes: string[] = [];
afterAll(() => clearPrefixes(prefixes));

describe("the node cache on Redis", () => {
  it("is shared by two processes: the second runs no node", { timeout: 60_000 }, async () => {
    const prefix = randomPrefix("cache");
    prefixes.push(prefix);
    const command = scriptCommand(fileURLToPath(new URL("./fixtures/cacheWorker.ts", import.meta.url)));
    await cacheSharedByTwoProcesses((args) =>
      fork(command.script, [redisUrl(), prefix, ...args], {
        execArgv: [...command.execArgv],
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      }),
    );
  });

  it("two workers computing one key at once: both run, one entry stored, the next run hits", async () => {
    const prefix = randomPrefix("cache-same");
    prefixes.push(prefix);
    await sameKeyAtOnce(() => new RedisCheckpointer({ url: redisUrl(), prefix }));
  });
});
