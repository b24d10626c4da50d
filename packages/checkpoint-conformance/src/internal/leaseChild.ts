/**
 * The child process of the engine lease tests (started by `engineLeases.ts`); the spec is JSON in argv[2].
 *
 * - `hold`: runs `trials` workflows one after another, each a node waiting for a stop; reports `started` when the
 *   node runs and `stopped` (with the time its signal aborted and the run's status) when the run ended.
 * - `stopper`: on each `stop` message calls `runner.stop(workflowId)` and reports the time it called it.
 * - `zombie`: runs the zombie workflow under a short lease; reports `parked` when the map items started, or with
 *   `freezeIn: "nested"` when `prep` of the nested graph runs (the test freezes it then), and at the end `done` with
 *   the run's status or the error's tag.
 */
import type { Checkpointer, Durability } from "@graph/checkpoint";
import { resolvePolicy } from "@graph/checkpoint";
import type { GraphEvent } from "@graph/runtime";
import { Runner } from "@graph/runtime";
import { runChildMain, sendToParent } from "./childMain.js";
import { waitGraph, ZOMBIE_VALUES, zombieGraph } from "./leaseGraphs.js";
import type { AdapterRef } from "./processes.js";
import { loadFactory } from "./processes.js";

/** What a lease child does. */
export interface LeaseChildSpec {
  readonly role: "hold" | "stopper" | "zombie";
  readonly adapter: AdapterRef;
  readonly workflowId: string;
  readonly trials: number;
  readonly leaseTtlMs: number;
  readonly leaseRenewIntervalMs: number;
  readonly stopPollIntervalMs: number;
  /** `zombie`: where it parks for the test to freeze it — inside `prep` of the nested graph, or inside the map items (default). */
  readonly freezeIn?: "nested" | "item";
  /** Durability of its checkpointer. Default `sync`. */
  readonly durability?: Durability;
}

const send = sendToParent;

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? "{}") as LeaseChildSpec;
  const factory = await loadFactory(spec.adapter);
  const { checkpointer, idle } = tracked(
    await factory(spec.adapter.args, { policy: resolvePolicy({ durability: spec.durability ?? "sync" }) }),
  );
  const warnings: string[] = [];
  const runner = new Runner({
    checkpointer,
    owner: `${spec.role}-${process.pid}`,
    leaseTtlMs: spec.leaseTtlMs,
    leaseRenewIntervalMs: spec.leaseRenewIntervalMs,
    stopPollIntervalMs: spec.stopPollIntervalMs,
    eventProcessors: [{ onEvent: (e: GraphEvent) => void (e.type === "Warning" && warnings.push(e.message)) }],
  });
  if (spec.role === "stopper") {
    process.on("message", (m) => {
      const { workflowId } = m as { workflowId: string };
      const at = Date.now();
      runner.stop(workflowId, { by: "stopper" }).then(
        (found) => send({ type: "stop-called", workflowId, at, found }),
        (error: unknown) => send({ type: "error", message: String(error) }),
      );
    });
    await send({ type: "ready" });
    await new Promise<void>((resolve) => process.once("disconnect", () => resolve()));
  } else if (spec.role === "hold") {
    for (let i = 0; i < spec.trials; i++) {
      const workflowId = `${spec.workflowId}-${i}`;
      let abortedAt = 0;
      const graph = waitGraph(
        () => void send({ type: "started", workflowId }),
        () => void (abortedAt = Date.now()),
      );
      const result = await runner.run(graph, { workflowId });
      await send({ type: "stopped", workflowId, abortedAt, status: result.status });
    }
  } else {
    // Parked once every item runs: all their writes before the node are done, so no transaction is open when the
    // test freezes this process (items then wait long enough for the freeze to land first).
    let waiting = 0;
    const park = () => new Promise((resolve) => setTimeout(resolve, 500));
    // Frozen between writes, never inside one (a frozen transaction would lock the rescuer out of SQLite): wait
    // until the queued steps (durability async) were written and no call is in flight, then report.
    const parked = async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await idle();
      await send({ type: "parked" });
    };
    const graph = zombieGraph(
      async () => {
        if (spec.freezeIn === "nested") return;
        if (++waiting === 3) await parked();
        await park();
      },
      async () => {
        if (spec.freezeIn !== "nested") return;
        await parked();
        await park();
      },
    );
    try {
      const result = await runner.run(graph, { workflowId: spec.workflowId, values: ZOMBIE_VALUES });
      await send({ type: "done", status: result.status, warnings });
    } catch (error) {
      const e = error as { _tag?: string; message?: string };
      await send({ type: "done", tag: e?._tag ?? "untagged", message: String(e?.message ?? error), warnings });
    }
  }
  await runner.close();
}

/** The checkpointer with a count of its calls in flight; `idle()` resolves once none is. */
function tracked(inner: Checkpointer): { readonly checkpointer: Checkpointer; idle(): Promise<void> } {
  let inFlight = 0;
  const checkpointer = new Proxy(inner, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        inFlight++;
        let result: unknown;
        try {
          result = (value as (...a: unknown[]) => unknown).apply(target, args);
        } catch (error) {
          inFlight--;
          throw error;
        }
        if (result instanceof Promise) return result.finally(() => inFlight--);
        inFlight--;
        return result;
      };
    },
  });
  return {
    checkpointer,
    idle: async () => {
      while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    },
  };
}

runChildMain(main);
