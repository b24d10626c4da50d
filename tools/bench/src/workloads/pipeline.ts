// Workload: a frames pipeline. A paginated source (an async generator, 1 ms per page) feeds an async embedder
// (4 ms) and a writer (2 ms), at most 16 pages in flight. The source is the slowest stage (the other two run 16
// at once), so a well-pipelined run takes about pages × 1 ms. Ours: `node({ frames: { window: 16 } })` and two
// plain nodes on an in-memory Runner; the floor: the same stages as a hand-written async pipeline with a window of
// 16 (a pool that pulls the generator only when a slot is free, results kept in page order).
import { Graph, node } from "@graph/core";
import { Runner } from "@graph/runtime";
import type { Workload } from "../lib/context.js";
import { row, timeCell } from "../lib/results.js";
import { fmt, measureAll, progress } from "../lib/timing.js";

const WINDOW = 16;
const FETCH_MS = 1;
const EMBED_MS = 4;
const WRITE_MS = 2;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function* pagesOf(count: number): AsyncGenerator<number> {
  for (let i = 0; i < count; i++) {
    await sleep(FETCH_MS);
    yield i;
  }
}
const embedPage = async (page: number) => {
  await sleep(EMBED_MS);
  return [page, page * 2];
};
const writeVector = async (vector: readonly number[]) => {
  await sleep(WRITE_MS);
  return vector[0]!;
};

function ourPipeline(): Graph {
  const pages = node(
    { name: "pages", output: "page", frames: { window: WINDOW } },
    async function* pages({ count }: { count: number }) {
      yield* pagesOf(count);
    },
  );
  const embed = node({ name: "embed", output: "vector" }, ({ page }: { page: number }) => embedPage(page));
  const write = node({ name: "write", output: "written" }, ({ vector }: { vector: number[] }) => writeVector(vector));
  return new Graph([pages, embed, write]);
}

/** The hand-written pipeline: pull a page only while fewer than WINDOW pages are unfinished. */
async function floorPipeline(count: number): Promise<number[]> {
  const it = pagesOf(count);
  const written: number[] = [];
  const running = new Set<Promise<void>>();
  for (let i = 0; ; i++) {
    while (running.size >= WINDOW) await Promise.race(running);
    const step = await it.next();
    if (step.done) break;
    const page = step.value;
    const job: Promise<void> = (async () => {
      written[i] = await writeVector(await embedPage(page));
    })().finally(() => running.delete(job));
    running.add(job);
  }
  await Promise.all(running);
  return written;
}

function check(label: string, written: unknown, count: number): void {
  if (!Array.isArray(written) || written.length !== count || written.some((w, i) => w !== i))
    throw new Error(`${label}: expected pages 0..${count - 1} written in order`);
}

export const pipeline: Workload = {
  name: "pipeline",
  title: "frames pipeline: 1,000-page generator → embedder → writer, window 16",
  async run(context) {
    const count = context.quick ? 200 : 1000;
    const runner = new Runner();
    const graph = ourPipeline();
    const reps = context.slowReps;
    const m = await measureAll(
      {
        ours: {
          warmup: 1,
          reps,
          run: async () => check("ours", (await runner.run(graph, { values: { count } })).values.written, count),
        },
        floor: { warmup: 1, reps, run: async () => check("floor", await floorPipeline(count), count) },
      },
      { onProgress: (message) => progress("pipeline", message) },
    );
    await runner.close();
    const ours = timeCell(m.ours, 1);
    const floor = timeCell(m.floor, 1);
    const slowest = count * FETCH_MS;
    progress(
      "pipeline",
      `ours ${fmt(ours.value)} ms, hand-written ${fmt(floor.value)} ms, slowest stage ≥ ${slowest} ms`,
    );
    return [
      row({
        id: `pipeline-frames-${count}`,
        workload: "pipeline",
        label: `frames pipeline, ${count} pages, window ${WINDOW}`,
        unit: "ms/run",
        ours,
        floor,
        langgraph: { skipped: "LangGraph.js has no per-yield frames" },
        targets: [{ kind: "overheadMax", threshold: count * 0.1, description: "overhead ≤ 0.1 ms/page" }],
        notes: [
          `stages: fetch ${FETCH_MS} ms/page (sequential), embed ${EMBED_MS} ms, write ${WRITE_MS} ms; the fetch alone takes ≥ ${slowest} ms`,
          `median of ${reps} runs`,
        ],
        details: { count, window: WINDOW, slowestStageMs: slowest },
      }),
    ];
  },
};
