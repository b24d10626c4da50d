// Processes of the queue workload: GraphWorker child processes (started, asked for their CPU time, stopped) and
// throwaway redis-server processes, one for the queue and one for the checkpointer of each row, so a row's Redis
// memory is its own and the shared Redis never holds 100,000 workflows.
import { type ChildProcess, fork, spawn } from "node:child_process";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";

const workerModule = fileURLToPath(new URL("./queueWorker.ts", import.meta.url));

/** A worker process; `messages` gets every IPC message it sends (after "ready"). */
export interface BenchWorker {
  readonly child: ChildProcess;
  readonly pid: number;
  onMessage(listener: (m: Record<string, unknown>) => void): void;
}

export async function startWorkers(
  count: number,
  env: Record<string, string>,
  extraExecArgv: readonly string[] = [],
): Promise<BenchWorker[]> {
  const children = Array.from({ length: count }, () =>
    fork(workerModule, [], {
      env: { ...process.env, ...env },
      execArgv: ["--conditions=@graph/source", "--import", "tsx", ...extraExecArgv],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    }),
  );
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve, reject) => {
          c.once("message", () => resolve());
          c.once("exit", (code) => reject(new Error(`queue bench worker exited (${code}) before it was ready`)));
        }),
    ),
  );
  return children.map((child) => ({
    child,
    pid: child.pid!,
    onMessage: (listener) => child.on("message", (m) => listener(m as Record<string, unknown>)),
  }));
}

/** The summed CPU time (ms) of the workers since they started. */
export async function workersCpuMs(workers: readonly BenchWorker[]): Promise<number> {
  const each = await Promise.all(
    workers.map(
      (w) =>
        new Promise<number>((resolve) => {
          const listener = (m: unknown) => {
            const msg = m as { type?: string; us?: number };
            if (msg.type !== "cpu") return;
            w.child.off("message", listener);
            resolve((msg.us ?? 0) / 1000);
          };
          w.child.on("message", listener);
          w.child.send("cpu");
        }),
    ),
  );
  return each.reduce((a, b) => a + b, 0);
}

/** Closes the workers (they finish or hand back their jobs) and waits for them to exit. */
export async function stopWorkers(workers: readonly BenchWorker[]): Promise<void> {
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((resolve) => {
          if (w.child.exitCode !== null || w.child.signalCode !== null) return resolve();
          w.child.once("exit", () => resolve());
          w.child.disconnect();
        }),
    ),
  );
}

/** A redis-server of this workload, on a free port, without persistence. */
export interface BenchRedis {
  readonly url: string;
  /** Bytes in use now (`INFO memory` used_memory). */
  usedMemory(): Promise<number>;
  /** CPU time (ms) of the server since it started (`INFO cpu`). */
  cpuMs(): Promise<number>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

const field = (info: string, name: string): number => Number(new RegExp(`^${name}:([0-9.]+)`, "m").exec(info)?.[1]);

export async function startRedis(): Promise<BenchRedis> {
  const port = await freePort();
  const server = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
  const url = `redis://127.0.0.1:${port}`;
  const admin = new Redis(url, { maxRetriesPerRequest: null, retryStrategy: (n) => (n > 100 ? null : 50) });
  admin.on("error", () => {}); // refused until the server listens; the ping below waits for it
  await admin.ping();
  return {
    url,
    usedMemory: async () => field(await admin.info("memory"), "used_memory"),
    cpuMs: async () => {
      const info = await admin.info("cpu");
      return (field(info, "used_cpu_user") + field(info, "used_cpu_sys")) * 1000;
    },
    stop: async () => {
      admin.disconnect();
      server.kill("SIGKILL");
      await exited;
    },
  };
}

/** Samples `used_memory` every 50 ms until stopped; resolves to the peak above the first sample, in MB. */
export function sampleMemory(redis: BenchRedis): { stop(): Promise<number> } {
  let peak = 0;
  let base: number | undefined;
  let running = true;
  const loop = (async () => {
    while (running) {
      const used = await redis.usedMemory();
      base ??= used;
      peak = Math.max(peak, used - base);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      const used = await redis.usedMemory();
      return Math.max(peak, used - (base ?? used)) / 1e6;
    },
  };
}
