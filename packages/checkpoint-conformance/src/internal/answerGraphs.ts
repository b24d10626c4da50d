/**
 * The graphs of the answer tests (`engineAnswers.ts`, `sendChild.ts`): a ticket that waits for a reply event (with
 * a timeout) and an approval interrupt (with a timeout), each followed by a node that logs every run of it to a file
 * synchronously — one line per execution, whatever process ran it. The nodes go through `trampoline` so every
 * process (bundled child, test process) builds the same definition hash.
 */
import fs from "node:fs";
import { Graph, interrupt, node, waitFor } from "@graph/core";
import { trampoline } from "./engineGraph.js";

/** The event the ticket graph waits for, and the payload field it matches the ticket on. */
export const REPLY_EVENT = "ticket.replied";

/** `ticketId → await-reply (event, 1 h timeout) → handle`: `handle` logs `handle:<text>:<timedOut>`. */
export function ticketGraph(logFile: string): Graph {
  const wait = waitFor({
    name: "await-reply",
    event: REPLY_EVENT,
    match: { ticketId: "ticketId" },
    response: "reply",
    timeout: "1h",
    onTimeout: null,
    timedOut: "noReply",
    payload: undefined as unknown as { ticketId: string; text: string },
  });
  const handle = node(
    { name: "handle", inputs: ["reply", "noReply"], output: "handled" },
    trampoline(({ reply, noReply }: { reply: { text: string } | null; noReply: boolean }) => {
      const line = `handle:${reply?.text ?? "none"}:${noReply}`;
      fs.appendFileSync(logFile, `${line}\n`);
      return line;
    }),
  );
  return new Graph([wait, handle], { name: "conformance-ticket" });
}

/** `draft → approve (interrupt, 1 h timeout) → publish`: `publish` logs `publish:<decision>:<expired>`. */
export function approvalGraph(logFile: string): Graph {
  const ask = interrupt({
    name: "approve",
    input: "draft",
    response: "decision",
    timeout: "1h",
    onTimeout: "expired",
    timedOut: "expired",
  });
  const publish = node(
    { name: "publish", inputs: ["decision", "expired"], output: "published" },
    trampoline(({ decision, expired }: { decision: string; expired: boolean }) => {
      const line = `publish:${decision}:${expired}`;
      fs.appendFileSync(logFile, `${line}\n`);
      return line;
    }),
  );
  return new Graph([ask, publish], { name: "conformance-approval" });
}

/** The lines a graph's logging node wrote (none when the file does not exist yet). */
export function logLines(logFile: string): string[] {
  if (!fs.existsSync(logFile)) return [];
  return fs.readFileSync(logFile, "utf8").split("\n").filter(Boolean);
}
