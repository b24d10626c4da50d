// A worker SIGKILLed when node k starts, for k = first, middle and last node of a 10-node chain (every k with
// GRAPH_CRASH_MATRIX=full, i.e. `npm run test:crash`): another worker finishes the run from the checkpointer; nodes
// before k ran once, node k at most twice, one step record per (superstep, node), and the values equal a clean
// in-process run.
import { sampledKillPoints } from "@graph/checkpoint-conformance";
import { Runner } from "@graph/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RemoteRunner } from "../src/index.js";
import { type TestEnv, testEnv } from "./fixtures/env.js";
import { chain10 } from "./fixtures/graphs.mjs";
import { logFile, readLog, startWorker } from "./fixtures/processes.js";

let env: TestEnv;
let remote: RemoteRunner;

beforeAll(async () => {
  env = await testEnv("redis");
  remote = new RemoteRunner(env.submitter);
});

afterAll(async () => {
  await remote?.close();
  await env?.dispose();
});

const nodes = [...chain10.nodes.keys()];

describe("a worker killed mid-run", () => {
  it.each(sampledKillPoints(nodes.length, [1, 5, nodes.length]).map((k) => k - 1))(
    "SIGKILL at the start of n%i: another worker finishes the run",
    async (k) => {
      const log = logFile(`crash${k}`);
      const tag = `c${k}`;
      const lease = { LEASE_TTL_MS: "1500", LOCK_MS: "1500" };
      const doomed = await startWorker({ ...env.workerEnv, ...lease, LOG_FILE: log, CRASH_AT: `n${k}` });
      const handle = remote.start(chain10, { values: { x: k, tag }, workflowId: `crash-${k}` });
      await doomed.next((m) => m.type === "node-start" && m.tag === tag);
      const rescuer = await startWorker({ ...env.workerEnv, ...lease, LOG_FILE: log });
      try {
        await doomed.kill("SIGKILL");
        const result = await handle.result;
        const clean = await new Runner().run(chain10, { values: { x: k, tag } });
        expect(result.status).toBe("completed");
        expect(result.values).toEqual(clean.values);
        // Completed executions: each node once; those before k on the killed worker, the rest on the rescuer. Node
        // k started twice (the killed worker reported its start, then hung before finishing it).
        const lines = readLog(log).filter((l) => l.tag === tag);
        expect(lines.map((l) => l.node)).toEqual(nodes);
        expect(lines.map((l) => l.pid)).toEqual(nodes.map((_, i) => (i < k ? doomed.pid : rescuer.pid)));
        const steps = (await env.checkpointer.getSteps(`crash-${k}`)).filter((s) => s.kind !== "input");
        const keys = steps.map((s) => `${s.superstep}/${s.nodeName}`);
        expect(new Set(keys).size).toBe(keys.length);
        expect(steps.map((s) => s.nodeName).sort()).toEqual([...nodes].sort());
      } finally {
        await rescuer.close();
      }
    },
    90_000,
  );
});
