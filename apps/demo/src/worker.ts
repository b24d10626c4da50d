// A worker process of `npm run demo -- --workers N`: takes the support workflow's runs from the queue and runs them
// on the demo's store. Started by the demo (see workers.ts); the same file runs on other machines with
// `REDIS_URL=… DEMO_STORE='{"kind":"postgres",…}' node --import tsx src/worker.ts`.
import { GraphWorker } from "@graph/queue-bullmq";
import { setModelDelay } from "./llm.js";
import { openStore, type StoreSpec } from "./store.js";
import { supportGraph } from "./workflow.js";

const spec = JSON.parse(process.env["DEMO_STORE"] ?? '{"kind":"sqlite","path":"data/demo.db"}') as StoreSpec;
if (process.env["DEMO_DELAY_MS"] !== undefined) setModelDelay(Number(process.env["DEMO_DELAY_MS"]));
const checkpointer = await openStore(spec);
await checkpointer.setup();
const worker = new GraphWorker({
  connection: process.env["REDIS_URL"],
  checkpointer,
  graphs: [supportGraph],
  queue: process.env["DEMO_QUEUE"] ?? "graph-demo",
  concurrency: 4,
  leaseTtlMs: 4000,
  // Longer than the lease: a busy machine that misses a lock renewal must not look like a dead worker.
  lockDurationMs: 15_000,
});
await worker.start();
process.send?.({ type: "ready" });
// Started by the demo: leave when it does (the IPC channel closes), handing unfinished runs back to the queue.
process.on("disconnect", () => void worker.close());
