// Workload 8: runs and map items on worker processes through @graph/queue-bullmq, with the machine's core count
// beside every number (a worker pool cannot beat the cores it runs on):
// - trivial map items in one process vs on 1/2/4 workers, chunks of 100 and 1,000: µs per item, Redis peak memory;
// - CPU-bound map items (≈ 1 ms): speed-up over one process;
// - 10-node workflows on PostgreSQL through RemoteRunner: runs/s per worker count;
// - the time from a worker's SIGKILL to the next step of its run on another worker.
// The rows use throwaway redis-servers (never the shared one) and PostgreSQL schemas of their own, removed after.
import os from "node:os";
import type { BenchContext, Workload } from "../lib/context.js";
import type { Row } from "../lib/results.js";
import { failoverRow } from "./queueKill.js";
import { mapRows } from "./queueMap.js";
import { postgresRows } from "./queuePg.js";

export const queue: Workload = {
  name: "queue",
  title: "map items and workflows on worker processes (BullMQ)",
  async run(context: BenchContext): Promise<Row[]> {
    const cores = os.cpus().length;
    return [
      ...(await mapRows(context, cores)),
      ...(await postgresRows(context, cores)),
      await failoverRow(context, cores),
    ];
  },
};
