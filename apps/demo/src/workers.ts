// `--workers N`: starts N worker processes on this machine and runs the tickets through them with a RemoteRunner,
// exactly as with workers on other machines (see the README of @graph/queue-bullmq).
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { RemoteRunner } from "@graph/queue-bullmq";
import { openStore, type StoreSpec } from "./store.js";

/** This demo's own queue: two demos on one Redis (each with its own store) never take each other's runs. */
const QUEUE = `graph-demo-${process.pid}`;

export interface WorkerPool {
  readonly remote: RemoteRunner;
  readonly pids: readonly number[];
  close(): Promise<void>;
}

/** The queue's Redis: `--db` when it is Redis, else REDIS_URL, else the local default. */
export function queueUrl(spec: StoreSpec): string {
  if (spec.kind === "redis") return spec.url;
  const env = process.env["REDIS_URL"];
  return env !== undefined && env !== "" ? env : "redis://127.0.0.1:6379";
}

export async function startWorkers(count: number, spec: StoreSpec, delayMs: number): Promise<WorkerPool> {
  const url = queueUrl(spec);
  const module = fileURLToPath(new URL("./worker.ts", import.meta.url));
  const children: ChildProcess[] = [];
  const ready = (child: ChildProcess) =>
    new Promise<void>((resolve, reject) => {
      child.once("message", () => resolve());
      child.once("exit", (code) =>
        reject(new Error(`A worker process exited with ${code} before it was ready (is Redis running at ${url}?).`)),
      );
    });
  try {
    for (let i = 0; i < count; i++)
      children.push(
        fork(module, [], {
          env: {
            ...process.env,
            REDIS_URL: url,
            DEMO_QUEUE: QUEUE,
            DEMO_STORE: JSON.stringify(spec),
            DEMO_DELAY_MS: String(delayMs),
          },
          execArgv: ["--conditions=@graph/source", "--import", "tsx"],
          stdio: ["ignore", "inherit", "inherit", "ipc"],
        }),
      );
    await Promise.all(children.map(ready));
  } catch (error) {
    for (const c of children) c.kill();
    throw error;
  }
  // The submitter's side of the store: a submission creates the workflow there and a stop is recorded there.
  const checkpointer = await openStore(spec);
  await checkpointer.setup();
  const remote = new RemoteRunner({ connection: url, queue: QUEUE, checkpointer });
  return {
    remote,
    pids: children.map((c) => c.pid ?? 0),
    close: async () => {
      await remote.close();
      await checkpointer.close();
      await Promise.all(
        children.map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.exitCode !== null || c.signalCode !== null) return resolve();
              c.once("exit", () => resolve());
              c.disconnect();
            }),
        ),
      );
    },
  };
}
