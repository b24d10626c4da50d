/**
 * Frames pipelines one level down on the adapter: inside a nested graph (`<id>/<graph node>/pages/<i>`) and inside
 * the items of a `mapOver` (`<id>/<graph node>/<item>/pages/<i>`). Each run is stopped mid-stream, then resumed by
 * another runner: no frame stored finished is written again, the result holds every frame in order, and the
 * pipeline's own result is reachable by its typed path.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Checkpointer } from "@graph/checkpoint";
import { Graph } from "@graph/core";
import { Runner } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import { readLog, SLOW } from "./engineCommon.js";
import { ids } from "./fixtures.js";
import { FRAMES, FRAMES_WINDOW, framesGraph, writesByFrame } from "./framesGraph.js";
import { openStorage } from "./handles.js";
import type { DescribeCheckpointerOptions } from "./options.js";

const ALL = Array.from({ length: FRAMES }, (_, i) => i);

async function finishedUnder(handle: Checkpointer, prefix: string): Promise<number[]> {
  const done: number[] = [];
  for (const i of ALL) if ((await handle.getWorkflow(`${prefix}/pages/${i}`))?.status === "completed") done.push(i);
  return done;
}

const tempLog = (id: string): string => path.join(os.tmpdir(), `graph-frames-${id.replace(/[^\w-]/g, "_")}.log`);

export function describeFramesNested(options: DescribeCheckpointerOptions): void {
  describe("frames pipelines one level down: stopped, resumed, finished frames kept", () => {
    it("inside a nested graph", { timeout: SLOW }, async () => {
      const storage = await openStorage(options);
      const id = ids("frames-nested")();
      const log = tempLog(id);
      try {
        let stop = () => {};
        const inner = (after?: (frame: number, writes: number) => void) =>
          new Graph([framesGraph(log, after).asNode({ name: "ingest" })], { name: "frames-nested" });
        const first = new Runner({ checkpointer: await storage.open("sync") });
        const handle = first.start(
          inner((_, writes) => (writes === 9 ? stop() : undefined)),
          { workflowId: id, values: { count: FRAMES } },
        );
        stop = () => void handle.stop();
        expect((await handle.result).status).toBe("stopped");
        await first.close();
        const other = await storage.open("sync");
        const finished = await finishedUnder(other, `${id}/ingest`);
        expect(finished.length).toBeGreaterThanOrEqual(9 - FRAMES_WINDOW);
        expect(finished.length).toBeLessThan(FRAMES);
        const before = writesByFrame(readLog(log));
        const runner = new Runner({ checkpointer: other });
        const result = await runner.run(inner(), { workflowId: id, values: { count: FRAMES }, waitForLease: true });
        expect(await finishedUnder(other, `${id}/ingest`)).toEqual(ALL);
        await runner.close();
        expect(result.status).toBe("completed");
        expect(result.values.written).toEqual(ALL);
        // The pipeline's result under the frames node's name, one level down.
        expect(result.get("ingest/pages/written")).toEqual(ALL);
        const after = writesByFrame(readLog(log));
        for (const f of finished) expect(after.get(f), `finished frame ${f} written again`).toBe(before.get(f));
        for (const f of ALL) expect(after.get(f) ?? 0).toBeGreaterThanOrEqual(1);
        expect(ALL.filter((f) => (after.get(f) ?? 0) > 1).length).toBeLessThanOrEqual(FRAMES_WINDOW);
      } finally {
        fs.rmSync(log, { force: true });
        await storage.close();
      }
    });

    it("inside the items of a mapOver", { timeout: SLOW }, async () => {
      const storage = await openStorage(options);
      const id = ids("frames-in-map")();
      const log = tempLog(id);
      try {
        let stop = () => {};
        // Two items, each a stream of its own `count` frames; both write to one log (frame ids repeat per item).
        const mapped = (after?: (frame: number, writes: number) => void) =>
          new Graph([framesGraph(log, after).asNode({ name: "ingest" }).mapOver("count")], { name: "frames-in-map" });
        const first = new Runner({ checkpointer: await storage.open("sync") });
        const handle = first.start(
          mapped((_, writes) => (writes === 12 ? stop() : undefined)),
          { workflowId: id, values: { count: [FRAMES, FRAMES] } },
        );
        stop = () => void handle.stop();
        expect((await handle.result).status).toBe("stopped");
        await first.close();
        const other = await storage.open("sync");
        const finished = [await finishedUnder(other, `${id}/ingest/0`), await finishedUnder(other, `${id}/ingest/1`)];
        const finishedCount = finished[0]!.length + finished[1]!.length;
        expect(finishedCount).toBeGreaterThanOrEqual(12 - 2 * FRAMES_WINDOW);
        expect(finishedCount).toBeLessThan(2 * FRAMES);
        const writesBefore = readLog(log).length;
        // A finished frame's child workflow is left as it is by the resume: same steps, nothing written again.
        const stepsOf = async (item: number, frame: number) =>
          JSON.stringify(await other.getSteps(`${id}/ingest/${item}/pages/${frame}`));
        const stored = await Promise.all(
          [0, 1].flatMap((item) => finished[item]!.map(async (f) => [item, f, await stepsOf(item, f)] as const)),
        );
        const runner = new Runner({ checkpointer: other });
        const result = await runner.run(mapped(), {
          workflowId: id,
          values: { count: [FRAMES, FRAMES] },
          waitForLease: true,
        });
        for (const [item, f, steps] of stored) expect(await stepsOf(item, f), `item ${item} frame ${f}`).toBe(steps);
        for (const item of [0, 1]) expect(await finishedUnder(other, `${id}/ingest/${item}`)).toEqual(ALL);
        await runner.close();
        expect(result.status).toBe("completed");
        expect(result.values.written).toEqual([ALL, ALL]);
        // The resume wrote the unfinished frames, plus at most the frames in flight at the stop again (a window per
        // item): never the finished ones.
        const resumed = readLog(log).length - writesBefore;
        expect(resumed).toBeGreaterThanOrEqual(2 * FRAMES - finishedCount - 2 * FRAMES_WINDOW);
        expect(resumed).toBeLessThanOrEqual(2 * FRAMES - finishedCount + 2 * FRAMES_WINDOW);
      } finally {
        fs.rmSync(log, { force: true });
        await storage.close();
      }
    });
  });
}
