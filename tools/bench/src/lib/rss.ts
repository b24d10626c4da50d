// Peak memory, measured in a fresh child process so nothing else the bench allocated is counted.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { resourceUsage } from "node:process";

/** What a measuring child prints (as its last stdout line, JSON). */
export interface ChildReport {
  readonly impl: string;
  readonly items: number;
  readonly total: number;
  readonly durationMs: number;
  /** RSS after imports and graph construction, before the run. */
  readonly baselineRssMB: number;
  /** Highest `process.memoryUsage().rss` seen by a 5 ms sampler (and at the end). */
  readonly sampledPeakRssMB: number;
  /** `process.resourceUsage().maxRSS`: the kernel's high-water mark for the whole process. */
  readonly maxRssMB: number;
}

const MB = 1024 * 1024;

/** Samples RSS every few ms while a run is in progress; `stop()` returns the peak in MB. */
export function startRssSampler(intervalMs = 5): { stop(): number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, process.memoryUsage().rss);
      return peak / MB;
    },
  };
}

export const rssMB = (): number => process.memoryUsage().rss / MB;
/** `maxRSS` is in kilobytes. */
export const maxRssMB = (): number => (resourceUsage().maxRSS * 1024) / MB;

/**
 * Runs `script` in a fresh Node process. `execArgv` defaults to this process's flags (tsx loader, source
 * condition); pass `["--expose-gc"]` for a plain process that loads the built packages.
 */
export function runChild(
  script: string,
  args: readonly string[],
  execArgv: readonly string[] = process.execArgv,
): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...execArgv, script, ...args], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => void (out += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      const last = out.trim().split("\n").pop() ?? "";
      if (code !== 0) return reject(new Error(`child ${script} ${args.join(" ")} exited with ${String(code)}: ${out}`));
      try {
        resolve(JSON.parse(last) as ChildReport);
      } catch {
        reject(new Error(`child ${script} printed no report: ${out}`));
      }
    });
  });
}

function newestMtime(dir: string, extension: string): number {
  let newest = 0;
  if (!fs.existsSync(dir)) return newest;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(extension)) {
      newest = Math.max(newest, fs.statSync(path.join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
    }
  }
  return newest;
}

/**
 * Whether the built `dist/` of every @graph package a map run loads is at least as new as its sources, so a
 * plain-Node child measures the current code. Returns the stale packages (empty = fresh).
 */
export function staleBuilds(): string[] {
  const require = createRequire(import.meta.url);
  const runtimeDir = path.dirname(require.resolve("@graph/runtime/package.json"));
  const fromRuntime = createRequire(path.join(runtimeDir, "package.json"));
  const stale: string[] = [];
  for (const name of ["@graph/core", "@graph/runtime", "@graph/checkpoint", "@graph/select"]) {
    const dir = path.dirname(fromRuntime.resolve(`${name}/package.json`));
    const dist = newestMtime(path.join(dir, "dist"), ".js");
    if (dist === 0 || dist < newestMtime(path.join(dir, "src"), ".ts")) stale.push(name);
  }
  return stale;
}
