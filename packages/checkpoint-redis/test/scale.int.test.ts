// The conformance kit's scale area on Redis: every command this store's keys see while a listing, a sweep batch or
// a start runs is counted from MONITOR (a script counts once; the commands it runs are checked but not counted); a
// range read over a whole index set (`-inf`..`+inf` or `0`..`-1` without LIMIT) is a full scan. 10,000 workflows
// here; `npm run test:scale` runs 100,000 (GRAPH_SCALE).
import type { CheckpointPolicy } from "@graph/checkpoint";
import { describeScale, type ScaleProbe } from "@graph/checkpoint-conformance";
import { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import { RedisCheckpointer } from "../src/index.js";
import { clearPrefixes, randomPrefix, redisUrl } from "./fixtures/store.js";

const prefix = randomPrefix("scale");
let admin: Redis;
let monitor: Awaited<ReturnType<Redis["monitor"]>>;
let seen: { args: string[]; source: string }[] | undefined;
let barrier = 0;
let barrierSeen: ((name: string) => void) | undefined;

beforeAll(async () => {
  admin = new Redis(redisUrl());
  monitor = await new Redis(redisUrl()).monitor();
  monitor.on("monitor", (_time: string, args: string[], source: string) => {
    if (!args.some((arg) => arg.startsWith(prefix))) return;
    if (args[0]?.toLowerCase() === "exists" && args[1]?.startsWith(`${prefix}__barrier__`)) {
      barrierSeen?.(args[1]);
      return;
    }
    seen?.push({ args, source });
  });
});
afterAll(async () => {
  monitor?.disconnect();
  await clearPrefixes([prefix]);
  admin?.disconnect();
});

function open(policy?: Partial<CheckpointPolicy>) {
  return new RedisCheckpointer({ url: redisUrl(), prefix, ...(policy === undefined ? {} : { policy }) });
}

/** Waits until MONITOR has shown everything sent before now (a marker command on this prefix comes after it). */
async function drain(): Promise<void> {
  const name = `${prefix}__barrier__${++barrier}`;
  const arrived = new Promise<void>((resolve) => {
    barrierSeen = (seenName) => {
      if (seenName === name) resolve();
    };
  });
  await admin.exists(name);
  await arrived;
}

const RANGES = new Set(["zrange", "zrangebyscore", "zrangebylex", "zrevrange", "zrevrangebyscore"]);

/** A range read over a whole set: both ends open and no LIMIT. */
function isFullRange(args: readonly string[]): boolean {
  const command = args[0]!.toLowerCase();
  if (command === "scan" || command === "keys" || command === "smembers") return true;
  if (!RANGES.has(command)) return false;
  if (args.some((arg) => arg.toUpperCase() === "LIMIT")) return false;
  const [low, high] = [args[2], args[3]];
  return (low === "0" && high === "-1") || (low === "-inf" && high === "+inf") || (low === "-" && high === "+");
}

const probe: ScaleProbe = {
  async trace(body) {
    await drain();
    seen = [];
    const result = await body();
    await drain();
    const commands = seen;
    seen = undefined;
    return {
      result,
      operations: commands.filter((command) => command.source !== "lua").length,
      fullScans: commands.filter((command) => isFullRange(command.args)).map((command) => command.args.join(" ")),
    };
  },
};

describeScale({ name: "redis", create: open, probe, concurrency: 32 });
