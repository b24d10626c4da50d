import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { scriptCommand } from "@graph/checkpoint-conformance";
import { afterAll } from "vitest";
// The runtime's time scenarios, run on this adapter (the runtime can't depend on its adapters).
import { describeTimeScenarios } from "../../runtime/test/workflows/time.js";
import { describeTimeCrashes } from "../../runtime/test/workflows/timeCrash.js";
import { RedisCheckpointer } from "../src/index.js";
import { clearPrefixes, randomPrefix, redisUrl } from "./fixtures/store.js";

const prefixes: string[] = [];
afterAll(() => clearPrefixes(prefixes));
/** A fresh key prefix per scenario (two runners of one scenario share it). */
function redis() {
  const prefix = randomPrefix("time");
  prefixes.push(prefix);
  return new RedisCheckpointer({ url: redisUrl(), prefix });
}

describeTimeScenarios("Redis", redis, "prefix");

describeTimeCrashes(
  "Redis",
  async () => {
    const prefix = randomPrefix("time-crash");
    prefixes.push(prefix);
    const command = scriptCommand(fileURLToPath(new URL("./fixtures/timeSleeper.ts", import.meta.url)));
    return (args) =>
      fork(command.script, [args[0]!, redisUrl(), prefix, ...args.slice(1)], {
        execArgv: [...command.execArgv],
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
  },
  "redis",
);
