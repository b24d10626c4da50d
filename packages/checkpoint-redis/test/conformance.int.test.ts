import { fileURLToPath } from "node:url";
import { describeCheckpointer } from "@graph/checkpoint-conformance";
import { afterAll } from "vitest";
import { RedisCheckpointer } from "../src/index.js";
import { clearPrefixes, randomPrefix, redisUrl } from "./fixtures/store.js";

// Storage tests: a fresh key prefix per instance. Engine tests with child processes: one prefix that the test
// process and the SIGKILLed children share. All keys are deleted when the file ends.
const prefixes: string[] = [];
const enginePrefix = randomPrefix("engine");
prefixes.push(enginePrefix);
afterAll(() => clearPrefixes(prefixes));

describeCheckpointer({
  name: "redis",
  create: (options) => {
    const prefix = randomPrefix("conformance");
    prefixes.push(prefix);
    return new RedisCheckpointer({ url: redisUrl(), prefix, ...options });
  },
  storageBytes: (checkpointer) => (checkpointer as RedisCheckpointer).storageBytes(),
  engine: {
    childProcess: {
      module: fileURLToPath(new URL("./fixtures/engineAdapter.ts", import.meta.url)),
      args: { url: redisUrl(), prefix: enginePrefix },
    },
  },
});
