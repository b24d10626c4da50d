/**
 * Engine conformance: answers and events reach a pause at most once (docs/time.md, "Exactly once").
 *
 * - **Late answers.** An answer that names its pause (`answering: result.pause`) after the pause was settled — by
 *   its timeout, by another answer, by an event, or because the workflow completed — is refused with
 *   `UnexpectedAnswerError`, and the stored workflow (record and every step, input records included) is the same
 *   before and after. It never starts a new turn.
 * - **A late event.** A `send` whose lookup saw the workflow waiting but whose delivery comes after another
 *   delivery or the wait's timeout completed it is `skipped` with `"already-resumed"`; the node after the `waitFor`
 *   runs once (never with both the reply and the timeout).
 * - **Racing answers.** Several runners answer one pause at the same instant: exactly one is taken.
 * - **Concurrent sends across processes** (with `engine.childProcess`, `sendChild.ts`): N processes send the same
 *   event to one waiting workflow at the same instant: one delivery, the others `skipped`, the node after the
 *   `waitFor` ran once (its log is appended synchronously by whichever process ran it).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Checkpointer } from "@graph/checkpoint";
import { Runner, type RunResult, type SendResult, testClock } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import { approvalGraph, logLines, REPLY_EVENT, ticketGraph } from "./answerGraphs.js";
import { SLOW, tagOf } from "./engineCommon.js";
import { ids } from "./fixtures.js";
import { borrowed, openStorage } from "./handles.js";
import type { DescribeCheckpointerOptions } from "./options.js";
import type { ChildProcessOptions } from "./processes.js";
import { adapterRef, limiter, spawnScript } from "./processes.js";
import type { SendChildMessage, SendChildSpec } from "./sendChild.js";

const HOUR = 3_600_000;
const T0 = Date.parse("2026-03-01T12:00:00Z");

/** Processes that send at once, and how many times the race is run. */
const SEND_PROCESSES = 4;
const SEND_TRIALS = 5;
/** Runners in this process that answer one pause at once, and how many times. */
const ANSWER_RACERS = 4;
const ANSWER_TRIALS = 10;

/** Everything stored about a workflow: what a refused answer must leave exactly as it was. */
async function stored(checkpointer: Checkpointer, id: string) {
  return {
    workflow: await checkpointer.getWorkflow(id),
    steps: await checkpointer.getSteps(id, { includeInputs: true }),
  };
}

/** Runs `body` with a temporary directory for node logs. */
async function withLogDir<A>(body: (dir: string) => Promise<A>): Promise<A> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-conformance-answers-"));
  try {
    return await body(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

type Settle = "timeout" | "answer" | "event";

/** A pause settled one way, then a late answer naming it: refused, nothing written, the node after it ran once. */
async function lateAnswer(options: DescribeCheckpointerOptions, settle: Settle): Promise<void> {
  const storage = await openStorage(options);
  try {
    await withLogDir(async (dir) => {
      const checkpointer = await storage.open("sync");
      const clock = testClock(T0);
      const log = path.join(dir, "nodes.log");
      const id = ids(`late-after-${settle}`)();
      const graph = settle === "event" ? ticketGraph(log) : approvalGraph(log);
      const runner = new Runner({ checkpointer: borrowed(checkpointer), clock, scheduler: false, graphs: [graph] });
      try {
        const first =
          settle === "event"
            ? await runner.run(graph, { workflowId: id, values: { ticketId: id } })
            : await runner.run(graph, { workflowId: id, values: { draft: "post" } });
        expect(first.status).toBe("paused");
        expect(first.pause?.visit).toBe((await checkpointer.getWorkflow(id))?.lastSuperstep);
        if (settle === "timeout") {
          await clock.advance(HOUR);
          const woken = await runner.wake(id);
          expect(woken).toMatchObject({ woken: true, workflowId: id });
        } else if (settle === "answer") {
          const answered = await runner.run(graph, {
            workflowId: id,
            values: { decision: "approved" },
            answering: first.pause,
          });
          expect(answered.status).toBe("completed");
        } else {
          const sent = await runner.send(REPLY_EVENT, { ticketId: id, text: "first" });
          expect(sent).toStrictEqual({ delivered: [{ workflowId: id, status: "completed" }], skipped: [] });
        }
        const before = await stored(checkpointer, id);
        expect(before.workflow?.status).toBe("completed");
        const key = settle === "event" ? "reply" : "decision";
        const late = await runner
          .run(graph, { workflowId: id, values: { [key]: "late" }, answering: first.pause })
          .then(
            (result: RunResult) => result,
            (error: unknown) => error,
          );
        expect(tagOf(late), `a late answer after ${settle} is refused`).toBe("UnexpectedAnswerError");
        const refused = late as { answers: readonly string[]; pending: readonly string[]; message: string };
        expect(refused.answers).toStrictEqual([key]);
        expect(refused.pending).toStrictEqual([]);
        expect(refused.message).toContain("no longer pending: it is completed");
        expect(await stored(checkpointer, id), "a refused answer writes nothing").toStrictEqual(before);
        const lines = logLines(log);
        expect(lines).toHaveLength(1);
        expect(lines[0]).toBe(
          settle === "timeout"
            ? "publish:expired:true"
            : settle === "answer"
              ? "publish:approved:false"
              : "handle:first:false",
        );
      } finally {
        await runner.close();
      }
    });
  } finally {
    await storage.close();
  }
}

/**
 * A `send` that looked the workflow up while it waited, and delivers after another delivery completed it: skipped
 * (`"already-resumed"`), nothing written. The late sender's lookup is held (a real store, its `listWaiting` answer
 * kept back) until the first delivery has completed the workflow.
 */
async function lateEvent(options: DescribeCheckpointerOptions, settle: "event" | "timeout"): Promise<void> {
  const storage = await openStorage(options);
  try {
    await withLogDir(async (dir) => {
      const checkpointer = await storage.open("sync");
      const log = path.join(dir, "nodes.log");
      const id = ids(`late-event-after-${settle}`)();
      const clock = testClock(T0);
      const graph = ticketGraph(log);
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let looked: () => void = () => {};
      const lookedUp = new Promise<void>((resolve) => (looked = resolve));
      const slow: Checkpointer = {
        ...borrowed(checkpointer),
        listWaiting: async (...args: Parameters<Checkpointer["listWaiting"]>) => {
          const found = await checkpointer.listWaiting(...args);
          looked();
          await held;
          return found;
        },
      };
      const first = new Runner({ checkpointer: borrowed(checkpointer), clock, scheduler: false, graphs: [graph] });
      const late = new Runner({ checkpointer: slow, clock, scheduler: false, graphs: [graph] });
      try {
        expect((await first.run(graph, { workflowId: id, values: { ticketId: id } })).status).toBe("paused");
        const lateSend = late.send(REPLY_EVENT, { ticketId: id, text: "late" });
        await lookedUp;
        if (settle === "event") {
          const sent = await first.send(REPLY_EVENT, { ticketId: id, text: "first" });
          expect(sent).toStrictEqual({ delivered: [{ workflowId: id, status: "completed" }], skipped: [] });
        } else {
          await clock.advance(HOUR);
          expect(await first.wake(id)).toMatchObject({ woken: true, workflowId: id });
        }
        const before = await stored(checkpointer, id);
        expect(before.workflow?.status).toBe("completed");
        release();
        expect(await lateSend).toStrictEqual({
          delivered: [],
          skipped: [{ workflowId: id, reason: "already-resumed" }],
        });
        expect(await stored(checkpointer, id), "a late event writes nothing").toStrictEqual(before);
        // Never both: the reply and the timeout.
        expect(logLines(log)).toStrictEqual([settle === "event" ? "handle:first:false" : "handle:none:true"]);
      } finally {
        release();
        await first.close();
        await late.close();
      }
    });
  } finally {
    await storage.close();
  }
}

/** Several runners answer one pause (naming it) at once: exactly one is taken, each trial. */
async function racingAnswers(options: DescribeCheckpointerOptions): Promise<void> {
  const storage = await openStorage(options);
  try {
    await withLogDir(async (dir) => {
      for (let trial = 0; trial < ANSWER_TRIALS; trial++) {
        const log = path.join(dir, `trial-${trial}.log`);
        const id = ids(`answer-race-${trial}`)();
        const graph = approvalGraph(log);
        const runners = await Promise.all(
          Array.from(
            { length: ANSWER_RACERS },
            async (_, i) =>
              new Runner({ checkpointer: await storage.open("sync"), scheduler: false, owner: `racer-${trial}-${i}` }),
          ),
        );
        try {
          const paused = await runners[0]!.run(graph, { workflowId: id, values: { draft: "post" } });
          const outcomes = await Promise.allSettled(
            runners.map((runner, i) =>
              runner.run(graph, { workflowId: id, values: { decision: `racer-${i}` }, answering: paused.pause }),
            ),
          );
          const taken = outcomes.filter((o) => o.status === "fulfilled");
          expect(taken, `trial ${trial}: exactly one answer is taken`).toHaveLength(1);
          for (const o of outcomes)
            if (o.status === "rejected")
              expect(["UnexpectedAnswerError", "WorkflowConflictError"]).toContain(tagOf(o.reason));
          expect(logLines(log), `trial ${trial}: publish ran once`).toHaveLength(1);
          expect((await runners[0]!.run(graph, { workflowId: id })).status).toBe("completed");
        } finally {
          for (const runner of runners) await runner.close();
        }
      }
    });
  } finally {
    await storage.close();
  }
}

/** N child processes send one event to one waiting workflow at the same instant, M times: one delivery each. */
async function concurrentSends(options: DescribeCheckpointerOptions, child: ChildProcessOptions): Promise<void> {
  const storage = await openStorage(options);
  const spawnLimit = limiter(SEND_PROCESSES);
  try {
    await withLogDir(async (dir) => {
      for (let trial = 0; trial < SEND_TRIALS; trial++) {
        const log = path.join(dir, `trial-${trial}.log`);
        const id = ids(`send-race-${trial}`)();
        const graph = ticketGraph(log);
        const runner = new Runner({ checkpointer: await storage.open("sync"), scheduler: false });
        try {
          expect((await runner.run(graph, { workflowId: id, values: { ticketId: id } })).status).toBe("paused");
        } finally {
          await runner.close();
        }
        const spec = (i: number): SendChildSpec => ({
          adapter: adapterRef(child),
          logFile: log,
          ticketId: id,
          text: `p${i}`,
        });
        const children = await Promise.all(
          Array.from({ length: SEND_PROCESSES }, (_, i) =>
            spawnLimit(async () => {
              const c = spawnScript<SendChildMessage, { type: "go"; at: number }>(child, "sendChild", spec(i));
              const ready = await c.next();
              if (ready.type !== "ready") throw new Error(`send child: ${JSON.stringify(ready)}\n${c.stderr()}`);
              return c;
            }),
          ),
        );
        const at = Date.now() + 200;
        for (const c of children) c.send({ type: "go", at });
        const results: SendResult[] = [];
        for (const c of children) {
          const message = await c.next();
          if (message.type !== "sent") throw new Error(`send child: ${JSON.stringify(message)}\n${c.stderr()}`);
          results.push(message.result);
          await c.exit;
        }
        const delivered = results.flatMap((r) => r.delivered);
        const skipped = results.flatMap((r) => r.skipped);
        expect(delivered, `trial ${trial}: exactly one delivery (got ${JSON.stringify(results)})`).toHaveLength(1);
        expect(delivered[0]).toStrictEqual({ workflowId: id, status: "completed" });
        for (const s of skipped) expect(s).toStrictEqual({ workflowId: id, reason: "already-resumed" });
        const lines = logLines(log);
        expect(lines, `trial ${trial}: the node after the waitFor ran once`).toHaveLength(1);
        expect(lines[0]).toMatch(/^handle:p[0-9]+:false$/);
      }
    });
  } finally {
    await storage.close();
  }
}

/** Registers the answer tests (in-process ones unless `inProcess` is false; the process race with `child`). */
export function describeAnswers(
  options: DescribeCheckpointerOptions,
  inProcess: boolean,
  child: ChildProcessOptions | undefined,
): void {
  describe("answers and events reach a pause at most once", () => {
    if (inProcess) {
      for (const settle of ["timeout", "answer", "event"] as const)
        it(
          `a late answer naming its pause after the ${settle} settled it: UnexpectedAnswerError, nothing written`,
          {
            timeout: SLOW,
          },
          () => lateAnswer(options, settle),
        );
      for (const settle of ["event", "timeout"] as const)
        it(
          `a send whose lookup saw the workflow waiting, delivering after the ${settle} completed it: skipped already-resumed, nothing written`,
          { timeout: SLOW },
          () => lateEvent(options, settle),
        );
      it(
        `${ANSWER_RACERS} runners answer one pause at once: exactly one is taken (${ANSWER_TRIALS} trials)`,
        {
          timeout: SLOW,
        },
        () => racingAnswers(options),
      );
    }
    if (child !== undefined)
      it(
        `${SEND_PROCESSES} processes send one event to one waiting workflow at once: one delivery (${SEND_TRIALS} trials)`,
        {
          timeout: SLOW,
        },
        () => concurrentSends(options, child),
      );
  });
}
