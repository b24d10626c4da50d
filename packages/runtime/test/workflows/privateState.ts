import type { Checkpointer } from "@graph/checkpoint";
import { END, Graph, interrupt, node, route } from "@graph/core";
import { expect } from "vitest";
import { Runner } from "../../src/index.js";

/**
 * A sub-agent with its own loop state (`log` and `count`, bound inside it) that pauses for an approval between its
 * two steps, called once per turn of an outer loop. What it must do, with any store and across process restarts
 * (a new checkpointer on the same storage for every run): a call resumed mid-loop keeps its own stored `log`, and
 * the next call (the outer loop's next turn) starts from `[]` again, never from the previous call's history.
 */
function privateLoopGraphs(calls: string[]) {
  const step = node(
    { name: "step", output: ["log", "count"] },
    ({ item, log, count }: { item: string; log: string[]; count: number }): [string[], number] => {
      calls.push(`step ${item}${count} after ${JSON.stringify(log)}`);
      return [[...log, `${item}${count}`], count + 1];
    },
  );
  const check = route({ name: "check", targets: ["approval", END] }, ({ count }: { count: number }) =>
    count < 2 ? "approval" : END,
  );
  const approval = interrupt({ name: "approval", input: "count", response: "ok" });
  const again = route({ name: "again", targets: ["step"] }, ({ ok }: { ok: boolean }) => {
    calls.push(`approved ${ok}`);
    return "step";
  });
  const agent = new Graph([step, check, approval, again], { name: "agent", entrypoint: "step" }).bind({
    log: [],
    count: 0,
  });
  const plan = node({ name: "plan", output: "item" }, ({ turn }: { turn: number }) => ["a", "b"][turn]!);
  const next = node(
    { name: "next", output: ["turn", "seen"] },
    ({ turn, log }: { turn: number; log: string[] }): [number, string[]] => {
      calls.push(`next ${turn} saw ${JSON.stringify(log)}`);
      return [turn + 1, log];
    },
  );
  const more = route({ name: "more", targets: ["plan", END] }, ({ turn }: { turn: number }) =>
    turn < 2 ? "plan" : END,
  );
  const outer = new Graph([plan, agent.asNode({ name: "sub" }), next, more], { name: "outer", entrypoint: "plan" });
  return { agent, outer };
}

/** A checkpointer for one run, and what ends it (a restarted process opens the same storage again). */
export interface Opened {
  readonly checkpointer: Checkpointer;
  readonly close: () => Promise<void>;
}

/** Runs the outer loop to the end, each run with the checkpointer `open` gives (a new one: a restarted process). */
export async function privateLoopStateSurvivesResume(open: () => Opened, workflowId: string): Promise<void> {
  const calls: string[] = [];
  const { agent, outer } = privateLoopGraphs(calls);
  expect(outer.nodes.get("sub")!.inputs).toEqual(["item"]);
  expect(agent.privateState).toEqual(["log", "count"]);

  const run = async (values: Record<string, unknown>) => {
    const { checkpointer, close } = open();
    try {
      return await new Runner({ checkpointer }).run(outer, { workflowId, values });
    } finally {
      await close();
    }
  };
  const first = await run({ turn: 0 });
  expect(first.status).toBe("paused");
  expect(first.pause).toMatchObject({ nodeName: "sub/approval", value: 1, responseKey: "ok" });
  const second = await run({ ok: true });
  expect(second.status).toBe("paused");
  expect(second.pause).toMatchObject({ nodeName: "sub/approval", value: 1, responseKey: "ok" });
  const third = await run({ ok: true });
  expect(third.status).toBe("completed");
  expect(third.values.log).toEqual(["b0", "b1"]);
  expect(third.values.seen).toEqual(["b0", "b1"]);
  expect(third.values.turn).toBe(2);
  expect(calls).toEqual([
    "step a0 after []",
    "approved true",
    'step a1 after ["a0"]',
    'next 0 saw ["a0","a1"]',
    // the second call: its own seed again (the first call's history is not handed to it)
    "step b0 after []",
    "approved true",
    'step b1 after ["b0"]',
    'next 1 saw ["b0","b1"]',
  ]);
}

/**
 * The same sub-agent without approvals, its loop a gate: the first call is stopped inside its second step, and the
 * workflow resumed (with nothing new) from a fresh checkpointer. The stopped call goes on from its stored `log`
 * (`["a0"]`), not from its seed and not from anything of the parent's; the next call starts from `[]`.
 */
export async function privateLoopStateSurvivesStop(open: () => Opened, workflowId: string): Promise<void> {
  const calls: string[] = [];
  let block = true;
  let running: () => void = () => {};
  const blocked = new Promise<void>((resolve) => {
    running = resolve;
  });
  const step = node(
    { name: "step", output: ["log", "count"] },
    async ({ item, log, count }: { item: string; log: string[]; count: number }, ctx): Promise<[string[], number]> => {
      calls.push(`step ${item}${count} after ${JSON.stringify(log)}`);
      if (block && item === "a" && count === 1) {
        block = false;
        running();
        await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
        return [log, count];
      }
      return [[...log, `${item}${count}`], count + 1];
    },
  );
  const check = route({ name: "check", targets: ["step", END] }, ({ count }: { count: number }) =>
    count < 2 ? "step" : END,
  );
  const agent = new Graph([step, check], { name: "agent", entrypoint: "step" }).bind({ log: [], count: 0 });
  const plan = node({ name: "plan", output: "item" }, ({ turn }: { turn: number }) => ["a", "b"][turn]!);
  const next = node({ name: "next", output: "turn" }, ({ turn, log }: { turn: number; log: string[] }) => {
    calls.push(`next ${turn} saw ${JSON.stringify(log)}`);
    return turn + 1;
  });
  const more = route({ name: "more", targets: ["plan", END] }, ({ turn }: { turn: number }) =>
    turn < 2 ? "plan" : END,
  );
  const outer = new Graph([plan, agent.asNode({ name: "sub" }), next, more], { name: "outer", entrypoint: "plan" });

  const first = open();
  const handle = new Runner({ checkpointer: first.checkpointer }).start(outer, { workflowId, values: { turn: 0 } });
  await blocked;
  handle.stop({ reason: "restart" });
  expect((await handle.result).status).toBe("stopped");
  await first.close();

  const second = open();
  try {
    const r = await new Runner({ checkpointer: second.checkpointer }).run(outer, { workflowId, values: {} });
    expect(r.status).toBe("completed");
    expect(r.values.log).toEqual(["b0", "b1"]);
  } finally {
    await second.close();
  }
  expect(calls).toEqual([
    "step a0 after []",
    'step a1 after ["a0"]', // stopped here
    'step a1 after ["a0"]', // resumed: the call's own stored history
    'next 0 saw ["a0","a1"]',
    "step b0 after []", // the next call: its own seed
    'step b1 after ["b0"]',
    'next 1 saw ["b0","b1"]',
  ]);
}
