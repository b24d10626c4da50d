/**
 * Frames pipelines (`node({ frames: true })`) on the adapter: every frame's consumers run as a child workflow
 * `<id>/pages/<frame>`, so a resumed run re-drives the generator from the start and finds the finished frames
 * stored. Checked after a stop in the test process and after a real SIGKILL of a child process mid-stream.
 */
import os from "node:os";
import path from "node:path";
import type { Checkpointer } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { Runner } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import { readLog, SLOW } from "./engineCommon.js";
import { ids } from "./fixtures.js";
import type { FramesChildSpec } from "./framesChild.js";
import { FRAMES, FRAMES_WINDOW, framesGraph, writesByFrame } from "./framesGraph.js";
import { openStorage } from "./handles.js";
import type { DescribeCheckpointerOptions } from "./options.js";
import { adapterRef, type ChildProcessOptions, spawnScript } from "./processes.js";

const ALL = Array.from({ length: FRAMES }, (_, i) => i);

/** The frames whose child workflow is stored completed. */
async function finishedFrames(handle: Checkpointer, id: string): Promise<number[]> {
  const done: number[] = [];
  for (const i of ALL) if ((await handle.getWorkflow(`${id}/pages/${i}`))?.status === "completed") done.push(i);
  return done;
}

function logFile(id: string): string {
  return path.join(os.tmpdir(), `graph-frames-${id.replace(/[^\w-]/g, "_")}.log`);
}

/** Resumes `id` and checks: complete, every frame written, no finished frame written twice. */
async function resumeAndCheck(handle: Checkpointer, id: string, log: string, finished: readonly number[]) {
  const before = writesByFrame(readLog(log));
  const runner = new Runner({ checkpointer: handle });
  try {
    const result = await runner.run(framesGraph(log), {
      workflowId: id,
      values: { count: FRAMES },
      waitForLease: true,
    });
    expect(result.status).toBe("completed");
    expect(result.values.written).toEqual(ALL);
    expect((result.values.page as { id: number }[]).map((p) => p.id)).toEqual(ALL);
    const after = writesByFrame(readLog(log));
    for (const f of finished) expect(after.get(f), `finished frame ${f} written again`).toBe(before.get(f));
    for (const f of ALL) expect(after.get(f) ?? 0, `frame ${f} never written`).toBeGreaterThanOrEqual(1);
    // Only frames that were in flight at the interruption run twice: at most one window of them.
    const again = ALL.filter((f) => (after.get(f) ?? 0) > 1);
    expect(again.length).toBeLessThanOrEqual(FRAMES_WINDOW);
    expect(await finishedFrames(handle, id)).toEqual(ALL);
  } finally {
    await runner.close();
  }
}

export function describeFrames(options: DescribeCheckpointerOptions): void {
  describe("frames pipelines: per-frame results on the store", () => {
    it("a pipeline stopped mid-stream resumes in another runner without re-running a finished frame", {
      timeout: SLOW,
    }, async () => {
      const storage = await openStorage(options);
      try {
        const id = ids("frames-stop")();
        const log = logFile(id);
        let stop = () => {};
        const runner = new Runner({ checkpointer: await storage.open("sync") });
        const handle = runner.start(
          framesGraph(log, (_, writes) => (writes === 9 ? stop() : undefined)),
          { workflowId: id, values: { count: FRAMES } },
        );
        stop = () => void handle.stop();
        expect((await handle.result).status).toBe("stopped");
        await runner.close();
        const other = await storage.open("sync");
        const finished = await finishedFrames(other, id);
        expect(finished.length).toBeGreaterThanOrEqual(9 - FRAMES_WINDOW);
        expect(finished.length).toBeLessThan(FRAMES);
        await resumeAndCheck(other, id, log, finished);
      } finally {
        await storage.close();
      }
    });

    it("frames inside a mapped nested graph: each item's frames stored under the item", { timeout: SLOW }, async () => {
      const storage = await openStorage(options);
      try {
        const letters = node(
          { output: "letter", frames: { window: 2 } },
          async function* letters({ word }: { word: string }) {
            for (const c of word) yield c;
          },
        );
        const upper = node({ output: "up" }, async function upper({ letter }: { letter: string }) {
          return letter.toUpperCase();
        });
        const join = node({ output: "shout", gather: true }, function join({ up }: { up: string[] }) {
          return up.join("");
        });
        const inner = new Graph([letters, upper, join], { name: "shouter" });
        const graph = new Graph([inner.asNode().mapOver("word")], { name: "frames-mapped" });
        const id = ids("frames-mapped")();
        const runner = new Runner({ checkpointer: await storage.open("sync") });
        const result = await runner.run(graph, { workflowId: id, values: { word: ["ab", "xyz"] } });
        expect(result.values.shout).toEqual(["AB", "XYZ"]);
        const handle = await storage.open("sync");
        expect((await handle.getWorkflow(`${id}/shouter/1/letters/2`))?.status).toBe("completed");
        expect((await handle.getSteps(`${id}/shouter/1/letters/2`)).map((s) => [s.nodeName, s.status])).toEqual([
          ["upper", "completed"],
        ]);
        await runner.close();
      } finally {
        await storage.close();
      }
    });
  });
}

/** The SIGKILL test: needs a store several processes share. */
export function describeFramesCrash(options: DescribeCheckpointerOptions, child: ChildProcessOptions): void {
  describe("frames pipelines: SIGKILL mid-stream, then resume in another process", () => {
    it("no finished frame runs again; every frame is written; the result lists every frame in order", {
      timeout: SLOW,
    }, async () => {
      const storage = await openStorage(options);
      try {
        const id = ids("frames-kill")();
        const log = logFile(id);
        const spec: FramesChildSpec = {
          adapter: adapterRef(child),
          workflowId: id,
          logFile: log,
          leaseTtlMs: 500,
          killAfter: 10,
        };
        const crashed = spawnScript<{ readonly type: string }, never>(child, "framesChild", spec);
        const exit = await crashed.exit;
        expect(exit.signal, crashed.stderr()).toBe("SIGKILL");
        expect(readLog(log)).toHaveLength(10);
        const handle = await storage.open("sync");
        expect((await handle.getWorkflow(id))?.status).toBe("running");
        const finished = await finishedFrames(handle, id);
        expect(finished.length).toBeGreaterThanOrEqual(10 - FRAMES_WINDOW);
        await resumeAndCheck(handle, id, log, finished);
      } finally {
        await storage.close();
      }
    });
  });
}
