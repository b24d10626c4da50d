// What every workload receives from main.ts.
import type { Row } from "./results.js";

export interface BenchContext {
  /** `--quick`: smaller sizes, fewer repetitions (CI smoke). */
  readonly quick: boolean;
  /** Untimed warm-up repetitions per contender. */
  readonly warmup: number;
  /** Minimum warm-up time per contender (the Effect runtime and V8 need thousands of runs to settle). */
  readonly warmupMs: number;
  /** Timed repetitions per contender (median reported). */
  readonly reps: number;
  /** Timed repetitions for slow contenders (LangGraph.js on big workloads, child processes). */
  readonly slowReps: number;
  /** A fresh temporary directory for database files; removed at exit. */
  readonly tmpDir: string;
}

export interface Workload {
  /** The `--only` name. */
  readonly name: string;
  readonly title: string;
  run(context: BenchContext): Promise<Row[]>;
}
