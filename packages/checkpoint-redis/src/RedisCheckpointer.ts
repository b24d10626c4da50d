/**
 * The Redis checkpointer: durable workflows on plain Redis (>= 6.2, no modules), standalone or Cluster.
 *
 * @module
 */
import type {
  CacheEntryWrite,
  Checkpoint,
  Checkpointer,
  CheckpointPolicy,
  ClaimOptions,
  DueWorkflow,
  EventWait,
  Fence,
  Lease,
  LeaseClaim,
  ListWorkflowsOptions,
  NewWorkflow,
  RenewedLease,
  Serializer,
  StartedWorkflow,
  StepReadOptions,
  StepRecord,
  StopRequest,
  WorkflowConflictError,
  WorkflowFinish,
  WorkflowPage,
  WorkflowRecord,
  WorkflowUpdate,
} from "@graph/checkpoint";
import {
  CheckpointError,
  defaultSerializer,
  isCheckpointError,
  isWorkflowConflictError,
  resolvePolicy,
} from "@graph/checkpoint";
import { assembleCheckpoint, foldSteps, resolveSweepLimit, selectSteps } from "@graph/checkpoint/adapter";
import type { Cluster, Redis } from "ioredis";
import { configError, positive } from "./internal/config.js";
import type { ServerAddress } from "./internal/connection.js";
import {
  addressOfClient,
  addressOfUrl,
  createOwnedClient,
  describeRedisError,
  evictionPolicies,
} from "./internal/connection.js";
import { DueSubscriber, dueChannel } from "./internal/dueNotify.js";
import type { IndexContext } from "./internal/indexes.js";
import { clearAll, storageBytes } from "./internal/indexes.js";
import { KeySpace } from "./internal/keys.js";
import { WorkflowOperations } from "./internal/operations.js";
import { finishWorkflow, startWorkflow } from "./internal/runWrites.js";
import { defineScripts } from "./internal/scripts.js";
import type { EvictionPolicyCheck, RedisCheckpointerOptions, RedisUrlOptions } from "./RedisCheckpointerOptions.js";

/**
 * A {@link Checkpointer} on Redis through ioredis.
 *
 * Every workflow lives in three keys sharing one Cluster hash slot; leases, fenced writes, step upserts with
 * retention, and ordered reads are Lua scripts, so each is atomic on the server and the fencing check happens
 * in the same script as the write it guards. Listing, child lookup and ttl pruning use sorted-set indexes.
 *
 * @example
 * ```ts
 * import { RedisCheckpointer } from "@graph/checkpoint-redis";
 * const checkpointer = new RedisCheckpointer(); // no url: REDIS_URL, else redis://127.0.0.1:6379
 * await checkpointer.setup();
 * await checkpointer.createWorkflow({ id: "chat-1", graphName: "chat", graphHash: "abc" });
 * const lease = await checkpointer.claimWorkflow("chat-1", { owner: "worker-1", ttlMs: 30_000 });
 * await checkpointer.close();
 * ```
 */
export class RedisCheckpointer implements Checkpointer {
  /** The resolved policy (retention and `ttlMs` are applied by this store; durability by the runtime). */
  readonly policy: CheckpointPolicy;
  /** The key prefix. */
  readonly prefix: string;
  /** Where the server is (`host:port`), as error messages name it. */
  readonly address: ServerAddress;
  /** The serializer values are stored with (the runtime snapshots async/exit steps with it). */
  readonly serializer: Serializer;
  readonly #client: Redis | Cluster;
  readonly #owned: boolean;
  readonly #context: IndexContext;
  readonly #operations: WorkflowOperations;
  readonly #due: DueSubscriber;
  readonly #evictionPolicy: EvictionPolicyCheck;
  readonly #onWarning: (message: string) => void;
  readonly #inFlight = new Set<Promise<unknown>>();
  #lastConnectionError: unknown;
  #setup: Promise<void> | undefined;
  #closed: Promise<void> | undefined;

  constructor(options: RedisCheckpointerOptions = {}) {
    if (typeof options !== "object" || options === null) {
      throw configError("options must be an object: { url } | { client }, plus prefix/policy.", "options");
    }
    const evictionPolicy = options.evictionPolicy ?? "warn";
    if (!["warn", "fail", "ignore"].includes(evictionPolicy)) {
      throw configError(
        `evictionPolicy must be "warn", "fail" or "ignore", got ${JSON.stringify(evictionPolicy)}.`,
        "evictionPolicy",
      );
    }
    this.#evictionPolicy = evictionPolicy;
    this.#onWarning = options.onWarning ?? ((message) => process.emitWarning(message, "RedisCheckpointerWarning"));
    const keys = new KeySpace(options.prefix ?? "graph:");
    this.prefix = keys.prefix;
    this.policy = resolvePolicy(options.policy);
    if ("client" in options && options.client !== undefined) {
      if (typeof options.client.defineCommand !== "function") {
        throw configError("client must be an ioredis Redis or Cluster instance.", "client");
      }
      this.#client = options.client;
      this.#owned = false;
      this.address = addressOfClient(options.client);
    } else {
      const urlOptions = options as RedisUrlOptions;
      const url = urlOptions.url ?? process.env["REDIS_URL"] ?? "redis://127.0.0.1:6379";
      if (typeof url !== "string" || !/^rediss?:\/\//.test(url)) {
        throw configError(`url must be a redis:// or rediss:// URL, got ${JSON.stringify(url)}.`, "url");
      }
      this.address = addressOfUrl(url);
      this.#client = createOwnedClient({
        url,
        connectTimeoutMs: positive(urlOptions.connectTimeoutMs, 3000, "connectTimeoutMs"),
        commandTimeoutMs: positive(urlOptions.commandTimeoutMs, 10_000, "commandTimeoutMs"),
        maxRetriesPerRequest: positive(urlOptions.maxRetriesPerRequest, 2, "maxRetriesPerRequest", true),
      });
      this.#owned = true;
    }
    // Without a listener an `error` event is only logged; keep the last one: it names the real cause
    // (ECONNREFUSED, ETIMEDOUT…) of a later "max retries" failure.
    this.#client.on("error", (error: unknown) => {
      this.#lastConnectionError = error;
    });
    this.#client.on("ready", () => {
      this.#lastConnectionError = undefined;
    });
    this.serializer = options.serializer ?? defaultSerializer;
    this.#context = {
      client: this.#client,
      scripts: defineScripts(this.#client),
      keys,
      serializer: this.serializer,
    };
    this.#operations = new WorkflowOperations(this.#context, this.policy);
    this.#due = new DueSubscriber(this.#client, dueChannel(keys.prefix));
  }

  /** Runs one operation: refuses after close, sets up once, tracks it for close(), classifies failures. */
  async #run<T>(operation: string, workflowId: string | undefined, body: () => Promise<T>, needsSetup = true) {
    if (this.#closed !== undefined) {
      throw new CheckpointError({
        message: `RedisCheckpointer.${operation}() was called after close(). Create a new checkpointer instead.`,
        operation,
        ...(workflowId === undefined ? {} : { workflowId }),
      });
    }
    const promise = (async () => {
      try {
        if (needsSetup) await this.#ensureSetup();
        return await body();
      } catch (error) {
        throw this.#classify(error, operation, workflowId);
      }
    })();
    this.#inFlight.add(promise);
    try {
      return await promise;
    } finally {
      this.#inFlight.delete(promise);
    }
  }

  #classify(
    error: unknown,
    operation: string,
    workflowId: string | undefined,
  ): CheckpointError | WorkflowConflictError {
    if (isCheckpointError(error) || isWorkflowConflictError(error)) return error;
    const where = workflowId === undefined ? "" : ` for workflow '${workflowId}'`;
    const hint = describeRedisError(error, this.address, this.#lastConnectionError);
    const detail = error instanceof Error ? error.message : String(error);
    return new CheckpointError({
      message:
        hint !== undefined
          ? `RedisCheckpointer.${operation}${where} failed: ${hint}`
          : `RedisCheckpointer.${operation}${where} failed (Redis at ${this.address}): ${detail}. Check that the ` +
            "server is reachable and healthy; the cause holds the original error.",
      operation,
      ...(workflowId === undefined ? {} : { workflowId }),
      cause: error,
    });
  }

  #ensureSetup(): Promise<void> {
    this.#setup ??= (async () => {
      await this.#checkEvictionPolicy();
      await this.#operations.backfillIndexes();
    })().catch((error: unknown) => {
      this.#setup = undefined;
      throw error;
    });
    return this.#setup;
  }

  async #checkEvictionPolicy(): Promise<void> {
    if (this.#evictionPolicy === "ignore") return;
    const policies = await evictionPolicies(this.#client);
    const unsafe = policies.filter((policy) => policy !== "noeviction");
    if (unsafe.length === 0) return;
    const message =
      `Redis at ${this.address} has maxmemory-policy ${[...new Set(unsafe)].join(", ")}: when it reaches maxmemory ` +
      "it may evict checkpoint keys, and an evicted key is a lost or corrupted workflow. Set " +
      "`maxmemory-policy noeviction` (CONFIG SET maxmemory-policy noeviction, or your provider's setting), or use " +
      'a dedicated Redis for checkpoints. Pass evictionPolicy: "ignore" to silence this check.';
    if (this.#evictionPolicy === "fail") {
      throw new CheckpointError({ message: `RedisCheckpointer.setup failed: ${message}`, operation: "setup" });
    }
    this.#onWarning(message);
  }

  /**
   * Checks the server (`maxmemory-policy`) and builds the status and graph sets of workflows stored by an older
   * version (once per store). Idempotent.
   */
  setup(): Promise<void> {
    return this.#run("setup", undefined, () => this.#ensureSetup(), false);
  }

  /**
   * Creates the workflow unless it exists (then returns the stored one with `created: false`); with a `fence`, only
   * while the guarding workflow's lease epoch still matches, checked in the same script as the creation.
   */
  createWorkflow(
    workflow: NewWorkflow,
    fence?: Fence,
  ): Promise<{ readonly workflow: WorkflowRecord; readonly created: boolean }> {
    const id = typeof workflow?.id === "string" ? workflow.id : undefined;
    return this.#run("createWorkflow", id, () => this.#operations.createWorkflow(workflow, fence));
  }

  /** Takes or renews the exclusive lease; `WorkflowConflictError` while another owner's lease is live. */
  claimWorkflow(id: string, options: ClaimOptions): Promise<Lease> {
    return this.#run("claimWorkflow", id, () => this.#operations.claimWorkflow(id, options));
  }

  /** Gives the lease up (ignored when `owner`/`epoch` no longer match). */
  releaseWorkflow(id: string, lease: Pick<Lease, "owner" | "epoch">): Promise<void> {
    return this.#run("releaseWorkflow", id, () => this.#operations.releaseWorkflow(id, lease));
  }

  /** Extends the holder's lease (never re-takes a lost one); carries the pending stop request. */
  renewWorkflow(
    id: string,
    lease: Pick<Lease, "owner" | "epoch">,
    options: { readonly ttlMs: number },
  ): Promise<RenewedLease> {
    return this.#run("renewWorkflow", id, () => this.#operations.renewWorkflow(id, lease, options));
  }

  /** Asks the workflow to stop, from any process (one script: atomic with claims and renewals). */
  requestStop(id: string, options?: { readonly info?: unknown }): Promise<WorkflowRecord | undefined> {
    return this.#run("requestStop", id, () => this.#operations.requestStop(id, options));
  }

  /** The pending stop request: one `HGET`. */
  /** A node-cache entry's text, or `undefined` (see `Checkpointer.readCacheEntry`): one script call. */
  readCacheEntry(key: string, now: number): Promise<string | undefined> {
    return this.#run("readCacheEntry", undefined, () => this.#operations.readCacheEntry(key, now));
  }

  /** Stores a node-cache entry, then expires and evicts (see `Checkpointer.writeCacheEntry`): one script call. */
  writeCacheEntry(key: string, value: string, write: CacheEntryWrite): Promise<void> {
    return this.#run("writeCacheEntry", undefined, () => this.#operations.writeCacheEntry(key, value, write));
  }

  /** Stores a graph's structure under its definition hash, once (see `Checkpointer.putGraphStructure`). */
  putGraphStructure(hash: string, structure: string): Promise<void> {
    return this.#run("putGraphStructure", undefined, () => this.#operations.putGraphStructure(hash, structure));
  }

  /** The structure stored under `hash`, or `undefined`. */
  getGraphStructure(hash: string): Promise<string | undefined> {
    return this.#run("getGraphStructure", undefined, () => this.#operations.getGraphStructure(hash));
  }

  getStopRequest(id: string): Promise<StopRequest | undefined> {
    return this.#run("getStopRequest", id, () => this.#operations.getStopRequest(id));
  }

  /** Upserts one step atomically and applies retention. */
  saveStep(step: StepRecord, fence?: Fence): Promise<void> {
    const id = typeof step?.workflowId === "string" ? step.workflowId : undefined;
    return this.#run("saveStep", id, () => this.#operations.saveSteps([step], fence, "saveStep"));
  }

  /** Saves several steps of one workflow in one script (all or none). */
  saveSteps(steps: readonly StepRecord[], fence?: Fence): Promise<void> {
    const id = typeof steps?.[0]?.workflowId === "string" ? steps[0].workflowId : undefined;
    return this.#run("saveSteps", id, () => this.#operations.saveSteps(steps, fence, "saveSteps"));
  }

  /** Creates the workflow if missing, claims it and saves `steps` under the new lease, in one script. */
  startWorkflow(workflow: NewWorkflow, claim: LeaseClaim, steps?: readonly StepRecord[]): Promise<StartedWorkflow> {
    const id = typeof workflow?.id === "string" ? workflow.id : undefined;
    return this.#run("startWorkflow", id, () =>
      startWorkflow(this.#context, this.#operations, this.policy, workflow, claim, steps),
    );
  }

  /**
   * Writes a run's last steps, its final update (fenced) and the lease release in one script. The steps must be of
   * the finished workflow's tree (one script reaches one hash slot).
   */
  finishWorkflow(finish: WorkflowFinish): Promise<WorkflowRecord> {
    const id = typeof finish?.workflowId === "string" ? finish.workflowId : undefined;
    return this.#run("finishWorkflow", id, () =>
      finishWorkflow(this.#context, this.#operations.times, this.#operations.statuses, this.policy, finish),
    );
  }

  /** Changes status, graph hash, pause or error of a workflow. */
  updateWorkflow(id: string, update: WorkflowUpdate, fence?: Fence): Promise<WorkflowRecord> {
    return this.#run("updateWorkflow", id, () => this.#operations.updateWorkflow(id, update, fence));
  }

  /** The stored workflow, or `undefined`. */
  getWorkflow(id: string): Promise<WorkflowRecord | undefined> {
    return this.#run("getWorkflow", id, () => this.#operations.getWorkflow(id));
  }

  /** Node steps in `index` order, optionally only through a superstep (input records only with `includeInputs`). */
  getSteps(id: string, options: StepReadOptions = {}): Promise<readonly StepRecord[]> {
    return this.#run("getSteps", id, async () => {
      const read = await this.#operations.readSteps(id, options?.throughSuperstep, "getSteps");
      return read === undefined ? [] : selectSteps(read.steps, options);
    });
  }

  /** The fold of step values in `index` order. */
  getState(
    id: string,
    options: { readonly throughSuperstep?: number } = {},
  ): Promise<Readonly<Record<string, unknown>>> {
    return this.#run("getState", id, async () => {
      const read = await this.#operations.readSteps(id, options?.throughSuperstep, "getState");
      return read === undefined ? {} : foldSteps(read.steps).values;
    });
  }

  /** State, versions and steps through a superstep (default: the latest), read from one snapshot. */
  getCheckpoint(id: string, options: { readonly superstep?: number } = {}): Promise<Checkpoint | undefined> {
    return this.#run("getCheckpoint", id, async () => {
      const read = await this.#operations.readSteps(id, options?.superstep, "getCheckpoint");
      return read === undefined ? undefined : assembleCheckpoint(id, read.lastSuperstep, read.steps, read.bound);
    });
  }

  /** Workflows ordered by creation time then id, one page at a time. */
  listWorkflows(options: ListWorkflowsOptions = {}): Promise<WorkflowPage> {
    return this.#run("listWorkflows", undefined, () => this.#operations.listWorkflows(options ?? {}));
  }

  /** Paused or running workflows due at or before `before`, earliest first (from the due index, checked). */
  listDue(options: { readonly before: Date; readonly limit?: number }): Promise<readonly DueWorkflow[]> {
    return this.#run("listDue", undefined, () => this.#operations.listDue(options));
  }

  /** The earliest due time of a paused or running workflow. */
  nextDue(): Promise<Date | undefined> {
    return this.#run("nextDue", undefined, () => this.#operations.nextDue());
  }

  /** Ids of the paused workflows waiting for exactly this event and key, oldest first. */
  listWaiting(wait: EventWait, options?: { readonly limit?: number }): Promise<readonly string[]> {
    return this.#run("listWaiting", undefined, () => this.#operations.listWaiting(wait, options));
  }

  /** Deletes the workflow, its steps and its child workflows (ids starting with `id + "/"`). */
  deleteWorkflow(id: string): Promise<void> {
    return this.#run("deleteWorkflow", id, () => this.#operations.deleteWorkflow(id));
  }

  /**
   * Deletes every expired workflow now (see `CheckpointPolicy.ttlMs`), batch after batch; returns how many root
   * workflows were deleted. Never called by runs: the runner's housekeeping sweeps.
   */
  pruneExpired(): Promise<number> {
    return this.#run("pruneExpired", undefined, () => this.#operations.pruneExpired());
  }

  /** One batch of retention housekeeping: at most `limit` (200) root workflows (see `Checkpointer.sweepExpired`). */
  sweepExpired(options?: { readonly limit?: number }): Promise<number> {
    return this.#run("sweepExpired", undefined, () => this.#operations.sweepExpired(resolveSweepLimit(options)));
  }

  /** Bytes of Redis memory used by this store's keys (`MEMORY USAGE`, keys found with `SCAN`). */
  storageBytes(): Promise<number> {
    return this.#run("storageBytes", undefined, () => storageBytes(this.#context));
  }

  /** Deletes every key under this store's prefix (with `SCAN`); returns how many keys were deleted. */
  clear(): Promise<number> {
    return this.#run("clear", undefined, () => clearAll(this.#context), false);
  }

  /**
   * Tells `onDue` of every due time stored under this prefix, by any process (Redis pub/sub on one subscriber
   * connection, a duplicate of the client, open while someone watches). See `Checkpointer.watchDue`.
   */
  watchDue(onDue: (at: Date) => void): Promise<() => Promise<void>> {
    return this.#run("watchDue", undefined, () => this.#due.watch(onDue));
  }

  /** Waits for running calls, then closes the client it created (an application's client is left open). */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      await Promise.allSettled([...this.#inFlight]);
      await this.#due.close();
      if (!this.#owned) return;
      if (this.#client.status === "ready") {
        await this.#client.quit().catch(() => this.#client.disconnect());
      } else {
        this.#client.disconnect();
      }
    })();
    return this.#closed;
  }
}
