import { fileURLToPath } from "node:url";
import { describeDueWake } from "@graph/checkpoint-conformance";
import { afterAll } from "vitest";
import { RedisCheckpointer } from "../src/index.js";
import { clearPrefixes, randomPrefix, redisUrl } from "./fixtures/store.js";

// The other processes are children on the same key prefix: one pauses a workflow with a due time and is SIGKILLed.
const prefix = randomPrefix("cross");
afterAll(() => clearPrefixes([prefix]));

const options = {
  name: "redis",
  create: () => new RedisCheckpointer({ url: redisUrl(), prefix }),
  engine: {
    childProcess: {
      module: fileURLToPath(new URL("./fixtures/engineAdapter.ts", import.meta.url)),
      args: { url: redisUrl(), prefix },
    },
  },
};

describeDueWake(options);
