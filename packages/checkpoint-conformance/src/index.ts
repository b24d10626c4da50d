/**
 * `@graph/checkpoint-conformance` — the suite every `@graph` checkpointer adapter runs, in a few lines:
 *
 * ```ts
 * import { describeCheckpointer } from "@graph/checkpoint-conformance";
 * import { MemoryCheckpointer } from "@graph/checkpoint";
 *
 * describeCheckpointer({ name: "memory", create: (options) => new MemoryCheckpointer(options) });
 * ```
 *
 * @module
 */
import { describe } from "vitest";
import type { ChildProcessOptions, EngineCheckpointerFactory, EngineOptions } from "./internal/engine.js";
import { describeEngine } from "./internal/engine.js";
import type { CreateCheckpointerOptions, DescribeCheckpointerOptions } from "./internal/options.js";
import { describeStorage, STORAGE_AREAS, type StorageArea } from "./internal/storage/index.js";

/**
 * Options of the engine half of the suite (crash/resume, lease races, growth through the runtime). Give
 * `childProcess` for adapters whose storage several processes share, so the crash and race tests also run in real
 * child processes (SIGKILL).
 *
 * @example
 * ```ts
 * const engine: EngineOptions = {
 *   childProcess: { module: fileURLToPath(new URL("./fixtures/engineAdapter.ts", import.meta.url)), args: { path: file } },
 * };
 * ```
 */
/**
 * How the engine tests start child processes: the module (absolute path or `file:` URL) exporting an
 * {@link EngineCheckpointerFactory}, its export name (default `"default"`), JSON `args` for it, and the children's
 * `execArgv` (default `["--conditions=@graph/source", "--import", "tsx"]`).
 *
 * @example
 * ```ts
 * const childProcess: ChildProcessOptions = { module: "/abs/path/test/fixtures/engineAdapter.ts", args: { path: "/tmp/x.db" } };
 * ```
 */
/**
 * What the `engine.childProcess.module` exports: `(args, { policy }) => Checkpointer`, opening the same storage on
 * every call (in the test process and in every child).
 *
 * @example
 * ```ts
 * // test/fixtures/engineAdapter.ts
 * import type { EngineCheckpointerFactory } from "@graph/checkpoint-conformance";
 * const open: EngineCheckpointerFactory = (args, options) => new SqliteCheckpointer({ ...(args as { path: string }), ...options });
 * export default open;
 * ```
 */
/**
 * What the suite passes to your factory: the `policy` the new checkpointer must use, when a test needs one
 * (retention, ttl). Pass it to your constructor; the suite fails with a clear message if it is ignored.
 *
 * @example
 * ```ts
 * const create = (options: CreateCheckpointerOptions) => new SqliteCheckpointer({ path: file, ...options });
 * ```
 */
/**
 * Options of {@link describeCheckpointer}.
 *
 * - `create` makes a new checkpointer. Instances may share storage (one database) — the suite only relies on
 *   workflow ids being isolated, and uses ids unique to each run.
 * - `destroy` disposes of one (default: `close()`).
 * - `storageBytes` measures the bytes the backend stores (e.g. the database file size); the growth test uses
 *   the difference before/after writing 1,000 steps. Without it, the JSON size of `getSteps` is measured.
 * - `reopen` opens a new instance on storage shared by every call (the `usage` area closes one instance and reads
 *   with another); default: the factory of `engine.childProcess`.
 * - `engine` configures the engine tests.
 * - `only` limits the storage suite to some contract areas ({@link STORAGE_AREAS}).
 *
 * @example
 * ```ts
 * const options: DescribeCheckpointerOptions = {
 *   name: "sqlite",
 *   create: (options) => new SqliteCheckpointer({ path: file, ...options }),
 *   storageBytes: async () => fs.statSync(file).size,
 * };
 * ```
 */
export type {
  ChildProcessOptions,
  CreateCheckpointerOptions,
  DescribeCheckpointerOptions,
  EngineCheckpointerFactory,
  EngineOptions,
};

/**
 * Registers the conformance suite (storage tests, then engine tests) as vitest `describe` blocks. Call it at the
 * top level of a test file.
 *
 * @example
 * ```ts
 * import { describeCheckpointer } from "@graph/checkpoint-conformance";
 * import { MemoryCheckpointer } from "@graph/checkpoint";
 *
 * describeCheckpointer({ name: "memory", create: (options) => new MemoryCheckpointer(options) });
 * ```
 */
export function describeCheckpointer(options: DescribeCheckpointerOptions): void {
  describe(`checkpointer conformance: ${options.name}`, () => {
    // The storage half goes with the in-process part when the engine tests are split over two files.
    if (options.engine?.part !== "processes") describe("storage", () => describeStorage(options, options.only));
    // describeEngine registers its own `describe("engine", …)` block (an empty describe fails in vitest).
    if (options.engine?.skip !== true) describeEngine(options);
  });
}
/**
 * Registers only the storage half of the suite (the `Checkpointer` contract, no runtime), optionally limited to some
 * contract areas — the fast loop while writing an adapter.
 *
 * @example
 * ```ts
 * import { describeStorageConformance } from "@graph/checkpoint-conformance";
 * describeStorageConformance({ name: "my-db", create: (o) => new MyCheckpointer(o) }, { only: ["leases", "steps"] });
 * ```
 */
export function describeStorageConformance(
  options: DescribeCheckpointerOptions,
  filter: { readonly only?: readonly StorageArea[] } = {},
): void {
  describe(`checkpointer storage conformance: ${options.name}`, () =>
    describeStorage(options, filter.only ?? options.only));
}

export {
  CONFLICT_STATES,
  CONFLICT_VALUES,
  type ConflictState,
  type ConflictWorkflow,
  conflictGraph,
  prepareConflictWorkflow,
  type StoredWorkflow,
  storedWorkflowTree,
  workflowTreeChanges,
} from "./conflicts.js";
export { describeDueWake } from "./crossProcess.js";
export { describeFrozenWriter, type FrozenWriterOptions } from "./frozenWriter.js";
export { CRASH_MATRIX_ENV, sampledKillPoints } from "./internal/crashMatrix.js";
export {
  type DescribeScaleOptions,
  describeScale,
  type ScaleProbe,
  type ScaleTrace,
  scaleSize,
} from "./scale.js";
export { describeServiceFaults, type ServiceFault } from "./serviceFaults.js";
export { type DescribeSweeperOptions, describeSweeperUnderLoad } from "./sweeper.js";
export { rejection, stepRecord } from "./testing.js";
export { describeWaitForLease } from "./waitForLease.js";
export {
  claimRounds,
  runTogether,
  type ScriptCommand,
  scriptCommand,
  startWorker,
  type Worker,
  waitUntil,
  workerStart,
} from "./workers.js";
/**
 * The contract areas of the storage suite, one test file each: `lifecycle`, `workflows`, `steps`, `listing`,
 * `retention`, `deletion`, `serialization`, `leases`, `fencing`, `fencedCreate`, `runWrites`, `usage`, `renewal`,
 * `stops`, `times`, `structures`, `nodeCache`, `zombies`, `unknownIds`, `ids`, `badInput`, `sharedRules`, `growth`.
 *
 * @example
 * ```ts
 * describeCheckpointer({ ...options, only: STORAGE_AREAS.filter((area) => area !== "growth") });
 * ```
 */
export { STORAGE_AREAS, type StorageArea };
