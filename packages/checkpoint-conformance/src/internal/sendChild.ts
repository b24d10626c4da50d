/**
 * A sender of the concurrent-send test (started by `engineAnswers.ts`; the spec is JSON in argv[2]): opens the
 * storage, knows the ticket graph, reports `ready`, waits for `go`, sends the reply event at the given instant and
 * reports what `send` returned. The node after the `waitFor` logs its runs to `logFile`, whichever process runs it.
 */
import { resolvePolicy } from "@graph/checkpoint";
import { Runner, type SendResult } from "@graph/runtime";
import { REPLY_EVENT, ticketGraph } from "./answerGraphs.js";
import { runChildMain, sendToParent } from "./childMain.js";
import type { AdapterRef } from "./processes.js";
import { loadFactory } from "./processes.js";

/** What a sender sends. */
export interface SendChildSpec {
  readonly adapter: AdapterRef;
  readonly logFile: string;
  readonly ticketId: string;
  readonly text: string;
}

/** What a sender reports. */
export type SendChildMessage =
  | { readonly type: "ready" }
  | { readonly type: "sent"; readonly result: SendResult }
  | { readonly type: "error"; readonly message: string };

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? "{}") as SendChildSpec;
  const factory = await loadFactory(spec.adapter);
  const checkpointer = await factory(spec.adapter.args, { policy: resolvePolicy({ durability: "sync" }) });
  const runner = new Runner({ checkpointer, scheduler: false, graphs: [ticketGraph(spec.logFile)] });
  try {
    // Opened (and its connection made) before the go: the sends then start within a few ms of each other.
    await checkpointer.setup();
    const go = new Promise<{ at: number }>((resolve) => process.once("message", (m) => resolve(m as { at: number })));
    await sendToParent({ type: "ready" });
    const { at } = await go;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
    const result = await runner.send(REPLY_EVENT, { ticketId: spec.ticketId, text: spec.text });
    await sendToParent({ type: "sent", result });
  } finally {
    await runner.close();
  }
}

runChildMain(main);
