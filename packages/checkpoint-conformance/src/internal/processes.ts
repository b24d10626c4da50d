/**
 * Child processes of the engine tests: what a child is asked to do (`ChildSpec`), what it reports
 * (`ChildMessage`), how the test process starts one, and how both sides load the adapter module.
 */
import { fork } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Checkpointer, Durability } from "@graph/checkpoint";
import type { CreateCheckpointerOptions } from "./options.js";
import { PRELOADED_MODULES, type ScriptCommand, scriptCommand } from "./scriptBundle.js";

/**
 * A function exported by an adapter module: opens a checkpointer on the storage described by `args` (for SQLite
 * the database file, for Postgres the connection and schema), with the given policy. Called in the test process
 * and in child processes: every call must reach the same storage.
 */
export type EngineCheckpointerFactory = (
  args: unknown,
  options: CreateCheckpointerOptions,
) => Checkpointer | Promise<Checkpointer>;

/** How child processes open the adapter: `module` exports an {@link EngineCheckpointerFactory}. */
export interface ChildProcessOptions {
  /** Absolute path or `file:` URL of the module (TypeScript is fine with the default `execArgv`). */
  readonly module: string;
  /** The export to call. Default `"default"`. */
  readonly exportName?: string;
  /** Passed to the factory as its first argument; must survive `JSON.stringify`. */
  readonly args?: unknown;
  /**
   * Node options of the children. By default a TypeScript child script is bundled with the adapter module
   * (esbuild, no loader at run time), or run through tsx (`["--conditions=@graph/source", "--import", "tsx"]`)
   * when esbuild is not installed. Given options run the script as it is with them.
   */
  readonly execArgv?: readonly string[];
}

/** What a child runs. */
export type ChildSpec =
  | {
      readonly role: "crash" | "resume";
      readonly adapter: AdapterRef;
      readonly durability: Durability;
      readonly leaseTtlMs: number;
      readonly workflowId: string;
      readonly logFile: string;
      /** `crash`: SIGKILL itself right after this many `CheckpointSaved` events. */
      readonly killAt?: number;
      /** The workflow: the engine graph (default) or the crash matrix's (`matrixGraph.ts`). */
      readonly graph?: "engine" | "matrix";
    }
  | {
      readonly role: "race";
      readonly adapter: AdapterRef;
      readonly durability: Durability;
      readonly leaseTtlMs: number;
      readonly workflowIds: readonly string[];
      /** Node log of each workflow; `<log>.lost` is created by the racer that got `WorkflowConflictError`. */
      readonly logFiles: readonly string[];
      /** Race i starts at `at + i * gapMs` (or at once, when a racer is late). */
      readonly gapMs: number;
    };

/** The adapter module as a child sees it. */
export interface AdapterRef {
  readonly module: string;
  readonly exportName: string;
  readonly args: unknown;
}

/** What a child reports over IPC. */
export type ChildMessage =
  | { readonly type: "ready" }
  | { readonly type: "finished"; readonly saves: number; readonly status: string; readonly values: string }
  | { readonly type: "race"; readonly outcomes: readonly RaceOutcome[] }
  | { readonly type: "error"; readonly message: string };

/** One racer's outcome for one workflow: the run's status, or the error's tag. */
export interface RaceOutcome {
  readonly workflowId: string;
  readonly status?: string;
  readonly tag?: string;
  readonly message?: string;
}

/** What the parent sends a racing child: start the first race at `at` (epoch ms). */
export interface GoMessage {
  readonly type: "go";
  readonly at: number;
}

/** The adapter reference handed to children. */
export function adapterRef(options: ChildProcessOptions): AdapterRef {
  return { module: moduleUrl(options.module), exportName: options.exportName ?? "default", args: options.args ?? null };
}

function moduleUrl(module: string): string {
  return module.startsWith("file:") ? module : pathToFileURL(path.resolve(module)).href;
}

/** The adapter module's exports: bundled into this child already (see `scriptBundle.ts`), else imported. */
async function adapterModule(ref: AdapterRef): Promise<Record<string, unknown>> {
  const registry = (globalThis as { [PRELOADED_MODULES]?: Record<string, Record<string, unknown>> })[PRELOADED_MODULES];
  const preloaded = registry?.[ref.module];
  if (preloaded !== undefined) return preloaded;
  try {
    return (await import(ref.module)) as Record<string, unknown>;
  } catch (error) {
    throw new Error(
      `engine.childProcess.module '${ref.module}' could not be imported: ${String(error)}. ` +
        "Give an absolute path (or file: URL) of a module that exports (args, { policy }) => Checkpointer.",
      { cause: error },
    );
  }
}

/** Imports the adapter module and returns its factory (clear error when the export is missing). */
export async function loadFactory(ref: AdapterRef): Promise<EngineCheckpointerFactory> {
  const loaded = await adapterModule(ref);
  const factory = loaded[ref.exportName];
  if (typeof factory !== "function") {
    throw new Error(
      `engine.childProcess.module '${ref.module}' has no function export '${ref.exportName}' ` +
        `(it exports: ${Object.keys(loaded).join(", ") || "nothing"}). ` +
        "Export (args, { policy }) => Checkpointer, e.g. `export default (args, options) => new MyCheckpointer({ ...args, ...options })`.",
    );
  }
  return factory as EngineCheckpointerFactory;
}

/** Another named export of the adapter module (a test hook), with a clear error when it is missing. */
export async function loadExport(ref: AdapterRef, name: string): Promise<unknown> {
  const loaded = await adapterModule(ref);
  if (!(name in loaded))
    throw new Error(
      `engine.childProcess.module '${ref.module}' has no export '${name}' (it exports: ${Object.keys(loaded).join(", ") || "nothing"}).`,
    );
  return loaded[name];
}

/** How to start the child script `script` for this adapter: bundled with its module unless `execArgv` is given. */
export function childCommand(options: ChildProcessOptions, script: string): ScriptCommand {
  if (options.execArgv !== undefined) return { script, execArgv: options.execArgv };
  return scriptCommand(script, adapterRef(options).module);
}

/** A child script next to this module (`<name>.ts` from sources, `<name>.js` once built). */
function childScript(name: string): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const ts = path.join(here, `${name}.ts`);
  return fs.existsSync(ts) ? ts : path.join(here, `${name}.js`);
}

/** A started child process. */
export interface Child<M = ChildMessage, S = GoMessage> {
  /** The next message (rejects if the child exits first). */
  next(): Promise<M>;
  send(message: S): void;
  /** Resolves when the process has exited. */
  readonly exit: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
  readonly pid: number | undefined;
  stderr(): string;
  kill(): void;
}

/** Starts `child.ts` with a spec. */
export function spawnChild(options: ChildProcessOptions, spec: ChildSpec): Child {
  return spawnScript<ChildMessage, GoMessage>(options, "child", spec);
}

/** Starts the child script `name` (next to this module) with a JSON spec. */
export function spawnScript<M, S>(options: ChildProcessOptions, name: string, spec: unknown): Child<M, S> {
  const command = childCommand(options, childScript(name));
  const child = fork(command.script, [JSON.stringify(spec)], {
    execArgv: [...command.execArgv],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    serialization: "json",
  });
  let err = "";
  child.stderr?.on("data", (chunk: Buffer) => void (err += chunk.toString()));
  child.stdout?.on("data", (chunk: Buffer) => void (err += chunk.toString()));
  const queue: M[] = [];
  const waiters: { resolve: (m: M) => void; reject: (e: Error) => void }[] = [];
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  child.on("message", (message) => {
    const waiter = waiters.shift();
    if (waiter) waiter.resolve(message as M);
    else queue.push(message as M);
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("exit", (code, signal) => {
      exited = { code, signal };
      for (const w of waiters.splice(0))
        w.reject(new Error(`child exited (code ${code}, signal ${signal}) before answering: ${err}`));
      resolve(exited);
    });
    child.on("error", (error) => {
      err += `\n${String(error)}`;
    });
  });
  return {
    next: () =>
      new Promise<M>((resolve, reject) => {
        const queued = queue.shift();
        if (queued !== undefined) return resolve(queued);
        if (exited !== undefined)
          return reject(new Error(`child exited (code ${exited.code}, signal ${exited.signal}): ${err}`));
        waiters.push({ resolve, reject });
      }),
    send: (message) => void child.send(message as object),
    exit,
    pid: child.pid,
    stderr: () => err,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}

/** Runs at most `n` of the given tasks at once (children cost CPU to start). */
export function limiter(n: number): <A>(task: () => Promise<A>) => Promise<A> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    while (active >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}
