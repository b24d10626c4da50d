/**
 * The frames pipeline of the conformance kit: `pages` yields `FRAMES` frames (window `FRAMES_WINDOW`), `embed`
 * and `write` run once per frame. `write` appends `write <frame>` to a log file with `fs.appendFileSync`, so a
 * call survives a SIGKILL that follows it, and the test can count how often each frame was written. Node functions
 * are trampolines with a fixed source and explicit names, so the bundled child process and the test process build
 * the same `definitionHash` (see engineGraph.ts).
 */
import fs from "node:fs";
import { Graph, type NodeFunction, node } from "@graph/core";
import { asyncTrampoline } from "./engineGraph.js";

export const FRAMES = 24;
export const FRAMES_WINDOW = 4;

/** The async-generator counterpart of `asyncTrampoline`: a fixed source that yields what `impl` yields. */
const framesTrampoline = new Function(
  "impl",
  "return async function* conformanceFrames(inputs, ctx) { yield* impl(inputs, ctx); };",
) as (impl: (inputs: never, ctx: unknown) => AsyncIterable<unknown>) => NodeFunction;

const tick = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `afterWrite(frame, writes)` runs after each logged write (`writes`: the writes of this process so far). */
export function framesGraph(logFile: string, afterWrite: (frame: number, writes: number) => void = () => {}): Graph {
  let writes = 0;
  const pages = node(
    { name: "pages", inputs: ["count"], output: "page", frames: { window: FRAMES_WINDOW } },
    framesTrampoline(async function* pages({ count }: { count: number }) {
      for (let i = 0; i < count; i++) yield { id: i, text: `page ${i}` };
    }),
  );
  const embed = node(
    { name: "embed", inputs: ["page"], output: "vector" },
    asyncTrampoline(async ({ page }: { page: { id: number; text: string } }) => {
      await tick(1 + (page.id % 3));
      return [page.id, page.text.length];
    }),
  );
  const write = node(
    { name: "write", inputs: ["vector"], output: "written" },
    asyncTrampoline(async ({ vector }: { vector: number[] }) => {
      await tick(2);
      fs.appendFileSync(logFile, `write ${vector[0]}\n`);
      afterWrite(vector[0]!, ++writes);
      return vector[0]!;
    }),
  );
  return new Graph([pages, embed, write], { name: "frames-pipeline" });
}

/** How often each frame was written, by frame. */
export function writesByFrame(lines: readonly string[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const line of lines) {
    const frame = Number(line.split(" ")[1]);
    counts.set(frame, (counts.get(frame) ?? 0) + 1);
  }
  return counts;
}
