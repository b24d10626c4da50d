// Runs the demo as a real child process, exactly like `npm run demo` does (minus pnpm), and reads what it leaves
// behind: its output, its event trace (--trace) and its checkpoints.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Checkpointer, INPUT_STEP } from "@graph/checkpoint";
import { afterAll } from "vitest";

export const APP_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** A ticket the classifier rates high risk (it pauses for approval). */
export const HIGH_RISK_TICKET =
  "Hi, I was charged twice for my annual plan this month ($240 each time). Can I get a refund for the duplicate charge?";
/** A ticket the auto-approve handler answers. */
export const LOW_RISK_TICKET = "How do I reset my password? The reset email never arrives.";

export interface Finished {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A running demo process. */
export interface DemoProcess {
  readonly child: ChildProcess;
  /** Output so far. */
  stdout(): string;
  readonly done: Promise<Finished>;
}

/**
 * Starts `node --conditions=@graph/source --import tsx src/main.ts …args` in apps/demo. stdin is a pipe that is
 * never written or closed: no terminal, and a demo that waited on stdin would hang (and time the test out).
 */
export function startDemo(args: readonly string[], env: Record<string, string> = {}): DemoProcess {
  const child = spawn(process.execPath, ["--conditions=@graph/source", "--import", "tsx", "src/main.ts", ...args], {
    cwd: APP_DIR,
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", CI: "", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const done = new Promise<Finished>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      child.stdin?.destroy();
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, stdout: () => stdout, done };
}

/** Runs the demo to its end; fails with its output if it does not end in time. */
export async function runDemo(
  args: readonly string[],
  options: { timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<Finished> {
  const demo = startDemo(args, options.env);
  const timeoutMs = options.timeoutMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      demo.child.kill("SIGKILL");
      reject(new Error(`demo ${args.join(" ")} did not finish within ${timeoutMs} ms.\nstdout:\n${demo.stdout()}`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([demo.done, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Asserts a clean exit, showing the demo's output when it was not. */
export function expectSuccess(result: Finished): Finished {
  if (result.code !== 0) {
    throw new Error(
      `demo exited with ${result.code ?? result.signal}.\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`,
    );
  }
  return result;
}

/** Polls until `predicate` holds; fails with `describe()` after the timeout. */
export async function waitUntil(predicate: () => boolean, describe: () => string, timeoutMs = 30_000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`Timed out waiting: ${describe()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const createdDirs: string[] = [];
// Every test file's directories go when the file is done; GRAPH_DEMO_KEEP_TMP=1 keeps them to look at a failure.
afterAll(() => {
  if (process.env["GRAPH_DEMO_KEEP_TMP"] === "1") return;
  for (const dir of createdDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

export function tempDir(label: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `graph-demo-${label}-`));
  createdDirs.push(dir);
  return dir;
}

/** One line of a `--trace` file. */
export interface TraceEvent {
  readonly type: string;
  readonly workflowId: string;
  readonly pid: number;
  readonly nodeName?: string;
  readonly replayed?: boolean;
  readonly completed?: number;
  readonly status?: string;
}

export function readTrace(file: string): TraceEvent[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as TraceEvent];
      } catch {
        return []; // a line cut in half by SIGKILL
      }
    });
}

/** `workflowId` with the root id replaced by `<root>`, so two workflows' children compare. */
export function relative(workflowId: string, root: string): string {
  return workflowId === root
    ? "<root>"
    : workflowId.startsWith(`${root}/`)
      ? `<root>${workflowId.slice(root.length)}`
      : workflowId;
}

/** Number of completed steps per `<workflow>:<node>` for a workflow and its children (input steps excluded). */
export async function completedSteps(checkpointer: Checkpointer, root: string): Promise<Record<string, number>> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await checkpointer.listWorkflows({ limit: 100, ...(cursor === undefined ? {} : { cursor }) });
    for (const w of page.workflows) if (w.id === root || w.id.startsWith(`${root}/`)) ids.push(w.id);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  const counts: Record<string, number> = {};
  for (const id of ids.sort()) {
    for (const step of await checkpointer.getSteps(id)) {
      if (step.nodeName === INPUT_STEP || step.status !== "completed") continue;
      const key = `${relative(id, root)}:${step.nodeName}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
  }
  return counts;
}
