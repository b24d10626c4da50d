/**
 * The workflow of the durable-attempts tests: `charge(order) → receipt` with `retry: { attempts: 4 }`, a stand-in
 * for a call to a payment API. Every call appends `<pid> <attempt>` to a log file synchronously (the side effect the
 * tests count, and it survives a SIGKILL), then lets the test decide what the call does, then fails unless told
 * to succeed.
 */
import fs from "node:fs";
import type { NodeContext } from "@graph/core";
import { Graph, node } from "@graph/core";
import { asyncTrampoline } from "./engineGraph.js";

/** The retry budget of `charge`. */
export const ATTEMPTS = 4;

/** What one call of `charge` does after it logged itself: fail (default), succeed, or wait for something first. */
export type OnCall = (attempt: number, ctx: NodeContext) => "ok" | undefined | Promise<"ok" | undefined>;

/** The attempts graph; `log` is the file the calls append to. */
export function attemptsGraph(log: string, onCall: OnCall): Graph {
  const charge = node(
    {
      name: "charge",
      inputs: ["order"],
      output: "receipt",
      retry: { attempts: ATTEMPTS, initialDelayMs: 5, backoff: "constant" },
    },
    // The same source text in every process (see `trampoline`): a child's workflow resumes in the test process.
    asyncTrampoline(async ({ order }: { order: string }, context: unknown) => {
      const ctx = context as NodeContext;
      fs.appendFileSync(log, `${process.pid} ${ctx.attempt}\n`);
      if ((await onCall(ctx.attempt, ctx)) === "ok") return `paid ${order} (attempt ${ctx.attempt})`;
      throw new Error(`bank down (attempt ${ctx.attempt})`);
    }),
  );
  return new Graph([charge], { name: "attempts" });
}

/** The calls in a log: `{ pid, attempt }` per line, in order. */
export function readCalls(log: string): { readonly pid: number; readonly attempt: number }[] {
  if (!fs.existsSync(log)) return [];
  return fs
    .readFileSync(log, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [pid, attempt] = line.split(" ").map(Number);
      return { pid: pid!, attempt: attempt! };
    });
}
