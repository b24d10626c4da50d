/**
 * Handles on one storage for the engine tests: several Runners (and processes) must see the same workflows.
 *
 * - With `engine.childProcess`, every handle is a new instance from the adapter module's factory (the same storage
 *   the children open: a database file, a Postgres schema).
 * - Without it (e.g. the in-memory checkpointer), one instance from `create` is shared: each Runner gets a
 *   delegating facade whose `close()` does nothing and whose `policy` carries the durability the test wants (the
 *   runtime reads durability from `checkpointer.policy`; retention stays the adapter's).
 */

import type { Checkpointer, CheckpointPolicy, Durability } from "@graph/checkpoint";
import { resolvePolicy } from "@graph/checkpoint";
import type { DescribeCheckpointerOptions } from "./options.js";
import { adapterRef, loadFactory } from "./processes.js";

/** Delegates every operation to `inner`, after `before(operation)` (which may throw), with its own close/policy. */
function delegate(
  inner: Checkpointer,
  hooks: {
    readonly policy: CheckpointPolicy | undefined;
    readonly before?: (operation: string) => void;
    readonly close: () => Promise<void>;
  },
): Checkpointer {
  const call = async <A>(operation: string, run: () => Promise<A>): Promise<A> => {
    hooks.before?.(operation);
    return run();
  };
  return {
    ...(hooks.policy === undefined ? {} : { policy: hooks.policy }),
    setup: () => call("setup", () => inner.setup()),
    createWorkflow: (workflow, fence) =>
      call("createWorkflow", () =>
        fence === undefined ? inner.createWorkflow(workflow) : inner.createWorkflow(workflow, fence),
      ),
    claimWorkflow: (id, options) => call("claimWorkflow", () => inner.claimWorkflow(id, options)),
    releaseWorkflow: (id, lease) => call("releaseWorkflow", () => inner.releaseWorkflow(id, lease)),
    renewWorkflow: (id, lease, options) => call("renewWorkflow", () => inner.renewWorkflow(id, lease, options)),
    requestStop: (id, options) => call("requestStop", () => inner.requestStop(id, options)),
    getStopRequest: (id) => call("getStopRequest", () => inner.getStopRequest(id)),
    saveStep: (step, fence) =>
      call("saveStep", () => (fence === undefined ? inner.saveStep(step) : inner.saveStep(step, fence))),
    updateWorkflow: (id, update, fence) =>
      call("updateWorkflow", () =>
        fence === undefined ? inner.updateWorkflow(id, update) : inner.updateWorkflow(id, update, fence),
      ),
    getWorkflow: (id) => call("getWorkflow", () => inner.getWorkflow(id)),
    getSteps: (id, options) => call("getSteps", () => inner.getSteps(id, options)),
    getState: (id, options) => call("getState", () => inner.getState(id, options)),
    getCheckpoint: (id, options) => call("getCheckpoint", () => inner.getCheckpoint(id, options)),
    listWorkflows: (options) => call("listWorkflows", () => inner.listWorkflows(options)),
    listDue: (options) => call("listDue", () => inner.listDue(options)),
    nextDue: () => call("nextDue", () => inner.nextDue()),
    listWaiting: (wait, options) => call("listWaiting", () => inner.listWaiting(wait, options)),
    deleteWorkflow: (id) => call("deleteWorkflow", () => inner.deleteWorkflow(id)),
    close: () => hooks.close(),
  };
}

/** A checkpointer that can "die": after `crash()` every operation rejects, as if its process had been killed. */
export interface Crashable {
  readonly checkpointer: Checkpointer;
  readonly crashed: boolean;
  crash(): void;
}

/** Wraps a handle so the test can kill it. Closing still closes the handle (to free connections). */
export function crashable(handle: Checkpointer): Crashable {
  let crashed = false;
  const checkpointer = delegate(handle, {
    policy: handle.policy,
    before: (operation) => {
      if (crashed)
        throw new Error(`simulated crash: this runner's process is dead (${operation} never reaches storage)`);
    },
    close: () => handle.close(),
  });
  return {
    checkpointer,
    get crashed() {
      return crashed;
    },
    crash: () => void (crashed = true),
  };
}

/** Opens handles on one storage for the duration of a test. */
export interface Storage {
  /** A new handle for one Runner (the Runner may close it). */
  open(durability: Durability): Promise<Checkpointer>;
  /** Closes every handle (and the shared instance). */
  close(): Promise<void>;
}

/** The storage of one test: module instances (with `engine.childProcess`) or one shared instance from `create`. */
export async function openStorage(options: DescribeCheckpointerOptions): Promise<Storage> {
  const child = options.engine?.childProcess;
  if (child !== undefined) {
    const ref = adapterRef(child);
    const factory = await loadFactory(ref);
    const handles: Checkpointer[] = [];
    return {
      open: async (durability) => {
        const policy = resolvePolicy({ durability });
        const handle = await factory(ref.args, { policy });
        handles.push(handle);
        assertDurability(handle, durability, "engine.childProcess.module's factory");
        return handle;
      },
      close: async () => {
        for (const handle of handles.splice(0)) await handle.close().catch(() => undefined);
      },
    };
  }
  const shared = await options.create({ policy: resolvePolicy({ durability: "sync" }) });
  assertDurability(shared, "sync", "create");
  await shared.setup();
  return {
    open: async (durability) =>
      delegate(shared, {
        policy: { ...(shared.policy ?? resolvePolicy({})), durability },
        close: async () => undefined,
      }),
    close: async () => {
      await (options.destroy === undefined ? shared.close() : options.destroy(shared));
    },
  };
}

/** A borrowed view of `checkpointer` for a Runner: closing the Runner does not close it. */
export function borrowed(checkpointer: Checkpointer): Checkpointer {
  return delegate(checkpointer, { policy: checkpointer.policy, close: async () => undefined });
}

function assertDurability(checkpointer: Checkpointer, durability: Durability, where: string): void {
  if (checkpointer.policy?.durability !== durability) {
    throw new Error(
      `The engine tests asked ${where} for a checkpointer with policy.durability "${durability}", but it has ` +
        `${JSON.stringify(checkpointer.policy)}. Pass options.policy to your constructor ` +
        "(e.g. (args, options) => new MyCheckpointer({ ...args, ...options })) and expose it as `policy`.",
    );
  }
}
