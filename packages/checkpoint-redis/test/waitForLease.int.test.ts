import { fileURLToPath } from "node:url";
import { describeWaitForLease } from "@graph/checkpoint-conformance";
import { afterAll } from "vitest";
import { RedisCheckpointer } from "../src/index.js";
import { clearPrefixes, randomPrefix, redisUrl } from "./fixtures/store.js";

// The holder is a child process on the same key prefix, SIGKILLed while it holds the workflow's lease.
const prefix = randomPrefix("wait");
afterAll(() => clearPrefixes([prefix]));

describeWaitForLease({
  name: "redis",
  create: (options) => new RedisCheckpointer({ url: redisUrl(), prefix, ...options }),
  engine: {
    childProcess: {
      module: fileURLToPath(new URL("./fixtures/engineAdapter.ts", import.meta.url)),
      args: { url: redisUrl(), prefix },
    },
  },
});
