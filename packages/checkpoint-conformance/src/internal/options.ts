import type { Checkpointer, CheckpointPolicy } from "@graph/checkpoint";
import type { EngineOptions } from "./engine.js";
import type { StorageArea } from "./storage/index.js";

/** What the suite passes to `create`: the policy the new checkpointer must use (when the test needs one). */
export interface CreateCheckpointerOptions {
  readonly policy?: CheckpointPolicy;
}

/** Options of `describeCheckpointer`. */
export interface DescribeCheckpointerOptions {
  readonly name: string;
  readonly create: (options: CreateCheckpointerOptions) => Promise<Checkpointer> | Checkpointer;
  readonly destroy?: (checkpointer: Checkpointer) => Promise<void>;
  readonly storageBytes?: (checkpointer: Checkpointer) => Promise<number>;
  readonly engine?: EngineOptions;
  /**
   * Opens a new instance on storage that every call of `reopen` shares (one file, schema or key prefix): the `usage`
   * area writes with one instance, closes it, and reads with the next. Default: the factory of
   * `engine.childProcess`; with neither the kit has no reopen test (an in-memory store keeps nothing past `close()`).
   */
  readonly reopen?: () => Promise<Checkpointer> | Checkpointer;
  /** Run only these contract areas of the storage suite (default: all); e.g. `["leases"]` while working on leases. */
  readonly only?: readonly StorageArea[];
}
