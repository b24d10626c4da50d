/**
 * The zombie process of the storage suite (started by `storage/zombie.ts`): claims the root workflow, then writes
 * one round per `write` message and renews on `renew`, reporting each outcome over IPC. The test freezes it with
 * SIGSTOP while it waits for a message (so it is frozen between writes, never inside one).
 */
import { resolvePolicy } from "@graph/checkpoint";
import { runChildMain, sendToParent } from "./childMain.js";
import type { AdapterRef } from "./processes.js";
import { loadFactory } from "./processes.js";
import { renewOutcome, writeRound, zombieWorkflows } from "./zombie.js";

/** The spec in argv[2]. */
export interface ZombieSpec {
  readonly adapter: AdapterRef;
  readonly rootId: string;
  readonly ttlMs: number;
}

/** Messages from the test. */
export type ZombieCommand =
  | { readonly type: "write"; readonly round: number }
  | { readonly type: "renew" }
  /** Renew every `everyMs` until a renewal carries a stop request; report it (`stop-seen`) and wait again. */
  | { readonly type: "watch"; readonly everyMs: number }
  | { readonly type: "exit" };

const send = sendToParent;

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? "{}") as ZombieSpec;
  const factory = await loadFactory(spec.adapter);
  const checkpointer = await factory(spec.adapter.args, { policy: resolvePolicy({ durability: "sync" }) });
  await checkpointer.setup();
  const workflows = zombieWorkflows(spec.rootId);
  const lease = await checkpointer.claimWorkflow(spec.rootId, { owner: "zombie", ttlMs: spec.ttlMs });
  const commands: ZombieCommand[] = [];
  let wake: (() => void) | undefined;
  process.on("message", (message) => {
    commands.push(message as ZombieCommand);
    wake?.();
  });
  await send({ type: "claimed", epoch: lease.epoch });
  for (;;) {
    while (commands.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    const command = commands.shift()!;
    if (command.type === "exit") break;
    if (command.type === "watch") {
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, command.everyMs));
        const renewed = await checkpointer.renewWorkflow(spec.rootId, lease, { ttlMs: spec.ttlMs });
        if (renewed.stopRequested !== undefined) {
          await send({ type: "stop-seen", at: Date.now(), requestedAt: renewed.stopRequested.requestedAt.getTime() });
          break;
        }
      }
    } else if (command.type === "write") {
      const outcomes = await writeRound(checkpointer, workflows, "zombie", lease.epoch, command.round);
      await send({ type: "wrote", round: command.round, outcomes });
    } else {
      await send({ type: "renewed", outcome: await renewOutcome(checkpointer, spec.rootId, lease, spec.ttlMs) });
    }
  }
  await checkpointer.close();
}

runChildMain(main);
