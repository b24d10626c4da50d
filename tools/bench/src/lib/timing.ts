// Timing helpers: warm up, then take the median of several repetitions.
//
// No forced GC between repetitions: `global.gc()` (a memory-reducing full GC) makes the next repetition of our
// runtime 3–4× slower (74 → 225–300 µs per agent-loop run here), apparently because V8 then drops optimised code
// and type feedback that the warm-up built. A full GC runs once per contender, before its warm-up.
import { performance } from "node:perf_hooks";

/** What one contender measured: milliseconds per repetition, wall clock and this process's CPU time. */
export interface Measurement {
  readonly medianMs: number;
  readonly samplesMs: readonly number[];
  /** CPU time (user + system, all threads of this process): less sensitive to other load on the machine. */
  readonly cpuMedianMs: number;
  readonly cpuSamplesMs: readonly number[];
}

export interface MeasureOptions {
  /** Untimed repetitions before the timed ones (JIT warm-up). */
  readonly warmup: number;
  /** Keep warming up (whole repetitions) until this much time has passed; the JIT needs thousands of runs. */
  readonly warmupMs?: number;
  /** Timed repetitions; the median is reported. */
  readonly reps: number;
  /** Called before each repetition, untimed (fresh database file, schema, …). Receives the repetition index. */
  readonly before?: (rep: number) => Promise<void> | void;
  /** One repetition. */
  readonly run: (rep: number) => Promise<void> | void;
  /** Called after each repetition, untimed (checks, cleanup). */
  readonly after?: (rep: number) => Promise<void> | void;
  /** Warm-up repetition when it should be cheaper than a timed one (fewer runs). Defaults to `run`. */
  readonly warmupRun?: (rep: number) => Promise<void> | void;
}

const gc: (() => void) | undefined = (globalThis as { gc?: () => void }).gc;

/** Collects garbage if the process was started with `--expose-gc`, so one workload's garbage is not billed to the next. */
function collectGarbage(): void {
  gc?.();
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * Measures several contenders of one workload, one after the other: for each, a full GC, the warm-up, then the
 * timed repetitions back to back.
 *
 * Not interleaved by default: running LangGraph.js between two repetitions of ours made ours ~50% slower
 * (agent loop: 71 → 116 µs per run) — its garbage and megamorphic call sites land in our repetitions — and a
 * production process runs one engine, not two. `interleave: true` (rounds: A1 B1 A2 B2 …) is for measuring one
 * contender at several sizes, where a burst of load should hit every size alike.
 */
export async function measureAll<K extends string>(
  contenders: Readonly<Record<K, MeasureOptions>>,
  options: { readonly interleave?: boolean; readonly onProgress?: (message: string) => void } = {},
): Promise<Record<K, Measurement>> {
  const names = Object.keys(contenders) as K[];
  const rep = new Map<K, number>(names.map((n) => [n, 0]));
  const wall = new Map<K, number[]>(names.map((n) => [n, []]));
  const cpu = new Map<K, number[]>(names.map((n) => [n, []]));

  const next = (name: K): number => {
    const r = rep.get(name)!;
    rep.set(name, r + 1);
    return r;
  };
  const warm = async (name: K) => {
    const o = contenders[name];
    collectGarbage();
    const warmupStart = performance.now();
    for (let i = 0; i < o.warmup || performance.now() - warmupStart < (o.warmupMs ?? 0); i++) {
      const r = next(name);
      await o.before?.(r);
      await (o.warmupRun ?? o.run)(r);
      await o.after?.(r);
    }
  };
  const timed = async (name: K) => {
    const o = contenders[name];
    const r = next(name);
    await o.before?.(r);
    const cpuStart = cpuMs();
    const start = performance.now();
    await o.run(r);
    wall.get(name)!.push(performance.now() - start);
    cpu.get(name)!.push(cpuMs() - cpuStart);
    await o.after?.(r);
  };

  if (options.interleave === true) {
    for (const name of names) await warm(name);
    const rounds = Math.max(...names.map((n) => contenders[n].reps));
    for (let round = 0; round < rounds; round++) {
      options.onProgress?.(`round ${round + 1}/${rounds}`);
      for (const name of names) if (round < contenders[name].reps) await timed(name);
    }
  } else {
    for (const name of names) {
      options.onProgress?.(`${name}: warm-up, then ${contenders[name].reps} timed repetitions`);
      await warm(name);
      for (let i = 0; i < contenders[name].reps; i++) await timed(name);
    }
  }

  const out = {} as Record<K, Measurement>;
  for (const name of names) {
    const w = wall.get(name)!;
    const c = cpu.get(name)!;
    out[name] = { medianMs: median(w), samplesMs: w, cpuMedianMs: median(c), cpuSamplesMs: c };
  }
  return out;
}

/** Measures one contender (warm-up, then the median of `reps`). */
export async function measure(options: MeasureOptions): Promise<Measurement> {
  return (await measureAll({ only: options })).only;
}

export function progress(workload: string, message: string): void {
  process.stdout.write(`  [${workload}] ${message}\n`);
}

/** Formats a number with 3 significant digits (no exponent for the ranges we print). */
export function fmt(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString("en-US");
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toPrecision(3);
}
