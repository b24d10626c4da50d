// A worker process of the queue workload: a GraphWorker on the queue and Redis checkpointer named by its env.
import { RedisCheckpointer } from "@graph/checkpoint-redis";
import { GraphWorker } from "@graph/queue-bullmq";
import { queueChain, queueItem } from "./queueGraphs.js";

const url = process.env["REDIS_URL"] ?? "redis://127.0.0.1:6379";
const checkpointer = new RedisCheckpointer({ url, prefix: process.env["BENCH_PREFIX"] ?? "bench:" });
await checkpointer.setup();
const worker = new GraphWorker({
  connection: url,
  checkpointer,
  graphs: [queueItem, queueChain],
  queue: process.env["BENCH_QUEUE"] ?? "bench",
  concurrency: 8,
  handleSignals: false,
});
await worker.start();
process.on("disconnect", () => void worker.close());
process.send?.("ready");
