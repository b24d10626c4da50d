import type { Checkpointer } from "@graph/checkpoint";
import { Graph, interrupt, node } from "@graph/core";
import { expect } from "vitest";
import { Runner } from "../../src/index.js";
import { runMapItem } from "../../src/worker.js";

/**
 * What a caller that never held the lease may change: nothing. Each scenario puts a workflow in one state (a live
 * holder, completed, failed, paused), then every public entry that fails before the claim is called against it, and
 * the stored record (workflow row + every step, input records included) must read back identical — right after the
 * loser's call and again after `LATE_MS` (a late write would land in between).
 */
export interface LoserStorage {
  /** The holder's checkpointer. */
  readonly holder: Checkpointer;
  /** The losers' checkpointer: another instance on the same storage (memory: the same instance). */
  readonly loser: Checkpointer;
}

const LATE_MS = 400;

async function rejection(run: () => Promise<unknown>): Promise<{ _tag?: string; message: string }> {
  try {
    await run();
  } catch (error) {
    return error as { _tag?: string; message: string };
  }
  throw new Error("expected the call to be rejected");
}

/** The stored record as bytes: the workflow row and all its steps (input records too). */
export async function storedBytes(checkpointer: Checkpointer, id: string): Promise<string> {
  const workflow = await checkpointer.getWorkflow(id);
  const steps = await checkpointer.getSteps(id, { includeInputs: true });
  return JSON.stringify({ workflow, steps });
}

/** A gate the test opens: the holder's node waits on it, so the holder stays live as long as the test wants. */
function latch(): { wait: Promise<void>; open: () => void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

type Tagged = { _tag?: string; message: string };

/** Every entry that fails before it claims, against workflow `id` in whatever state it is in. */
async function losers(
  runner: Runner,
  id: string,
  graphs: { current: Graph; other: Graph; needsMore: Graph },
  live: boolean,
  checkpoint: Awaited<ReturnType<Checkpointer["getCheckpoint"]>>,
): Promise<Record<string, Tagged>> {
  const { current, other, needsMore } = graphs;
  const out: Record<string, Tagged> = {};
  // A live holder: even the same graph and values lose the race; otherwise a different graph version loses.
  const lose = live ? current : other;
  out["run"] = await rejection(() => runner.run(lose, { workflowId: id, values: { text: "again" } } as never));
  out["resume"] = await rejection(() => runner.run(lose, { workflowId: id } as never));
  out["start"] = await rejection(
    () => runner.start(lose, { workflowId: id, values: { text: "again" } } as never).result,
  );
  out["fork"] = await rejection(() => runner.run(lose, { workflowId: id, checkpoint } as never));
  // A newer graph forced onto the workflow that needs an input nobody gave: MissingInputError before the claim.
  out["missing inputs"] = await rejection(() => runner.run(needsMore, { workflowId: id, force: true } as never));
  // A map item of this workflow whose root fence is stale (the root was claimed since).
  out["runMapItem"] = await rejection(() =>
    runMapItem(runner, current, {
      workflowId: `${id}/m/0`,
      parentWorkflowId: `${id}/m`,
      values: { text: "item" },
      parentVersions: {},
      fence: { epoch: 1_000_000, workflowId: id },
      completeOnStop: false,
      maxIterations: 1000,
    }),
  );
  return out;
}

function expectLosses(out: Record<string, Tagged>, live: boolean): void {
  const raceTag = live ? "WorkflowConflictError" : "VersionMismatchError";
  expect(out["run"]?._tag).toBe(raceTag);
  expect(out["resume"]?._tag).toBe(raceTag);
  expect(out["start"]?._tag).toBe(raceTag);
  expect(out["fork"]?._tag).toBe(raceTag);
  expect(out["missing inputs"]?._tag).toBe("MissingInputError");
  expect(out["runMapItem"]?._tag).toBe("LeaseLostError");
}

/**
 * The conflict matrix on one storage: live holder / completed / failed / paused × run, resume, start, fork,
 * missing inputs, runMapItem (and stop on finished workflows): the loser writes nothing.
 */
export async function loserWritesNothing(storage: LoserStorage, prefix: string): Promise<void> {
  const gate = { current: latch() };
  const slow = node({ name: "slow", output: "out" }, async ({ text }: { text: string }) => {
    if (text === "hold") await gate.current.wait;
    if (text === "boom") throw new Error("boom");
    return `out:${text}`;
  });
  const otherSlow = node({ name: "slow", output: "out" }, async ({ text }: { text: string }) => `other:${text}`);
  const current = new Graph([slow], { name: "loser" });
  const other = new Graph([otherSlow], { name: "loser" });
  const needsMore = new Graph(
    [slow, node({ name: "more", output: "also" }, ({ out, extra }: { out: string; extra: string }) => out + extra)],
    { name: "loser" },
  );
  const approve = interrupt({ name: "approve", input: "out", response: "answer" });
  const pausing = new Graph([slow, approve], { name: "loser-pause" });
  const pausingOther = new Graph([otherSlow, approve], { name: "loser-pause" });
  const pausingMore = new Graph(
    [
      slow,
      approve,
      node({ name: "more", output: "also" }, ({ out, extra }: { out: string; extra: string }) => out + extra),
    ],
    { name: "loser-pause" },
  );

  // Long leases, no renewal during the test: a live holder's record changes only when the holder itself writes.
  const lease = { leaseTtlMs: 60_000, leaseRenewIntervalMs: 30_000, stopPollIntervalMs: 30_000 };
  const holder = new Runner({ checkpointer: storage.holder, ...lease, owner: "holder" });
  const loser = new Runner({ checkpointer: storage.loser, ...lease, owner: "loser" });
  const read = storage.holder;
  try {
    // ---- live holder
    const liveId = `${prefix}-live`;
    const running = holder.start(current, { workflowId: liveId, values: { text: "hold" } });
    for (let i = 0; i < 200 && (await read.getWorkflow(liveId))?.lease === undefined; i++)
      await new Promise((r) => setTimeout(r, 5));
    const liveCheckpoint = await read.getCheckpoint(liveId);
    const before = await storedBytes(read, liveId);
    expect(JSON.parse(before).workflow.status).toBe("running");
    const liveOut = await losers(loser, liveId, { current, other, needsMore }, true, liveCheckpoint);
    expectLosses(liveOut, true);
    // The same process: the runner's own table of live runs refuses it, before any storage call.
    const sameProcess = await rejection(() => holder.run(current, { workflowId: liveId, values: { text: "x" } }));
    expect(sameProcess._tag).toBe("WorkflowConflictError");
    expect(await storedBytes(read, liveId)).toBe(before);
    await new Promise((r) => setTimeout(r, LATE_MS));
    expect(await storedBytes(read, liveId)).toBe(before);
    expect(await read.getWorkflow(`${liveId}/m/0`)).toBeUndefined();
    gate.current.open();
    const finished = await running.result;
    expect(finished.status).toBe("completed");
    await new Promise((r) => setTimeout(r, LATE_MS));
    // The losers' calls never land late: the workflow stays as its holder finished it.
    const completedLive = JSON.parse(await storedBytes(read, liveId));
    expect(completedLive.workflow.status).toBe("completed");
    expect(completedLive.workflow.lease).toBeUndefined();

    // ---- completed, failed, paused
    const states: Array<[string, Graph, { current: Graph; other: Graph; needsMore: Graph }, string, string]> = [
      ["completed", current, { current, other, needsMore }, "fine", "completed"],
      ["failed", current, { current, other, needsMore }, "boom", "failed"],
      ["paused", pausing, { current: pausing, other: pausingOther, needsMore: pausingMore }, "fine", "paused"],
    ];
    for (const [label, graph, graphs, text, status] of states) {
      const id = `${prefix}-${label}`;
      const first = await holder.run(graph, { workflowId: id, values: { text }, errorHandling: "continue" } as never);
      expect(first.status).toBe(status);
      const checkpoint = await read.getCheckpoint(id);
      const stored = await storedBytes(read, id);
      const out = await losers(loser, id, graphs, false, checkpoint);
      expectLosses(out, false);
      expect(await storedBytes(read, id), `${label}: record after the losers' calls`).toBe(stored);
      if (status !== "paused") {
        // A stop of a finished workflow changes nothing either.
        expect(await loser.stop(id)).toBe(false);
      }
      await new Promise((r) => setTimeout(r, LATE_MS));
      expect(await storedBytes(read, id), `${label}: record ${LATE_MS} ms later`).toBe(stored);
      expect(await read.getWorkflow(`${id}/m/0`)).toBeUndefined();
    }
  } finally {
    gate.current.open();
    await loser.close();
    await holder.close();
  }
}
