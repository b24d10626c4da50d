import { Graph, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { type GraphEvent, Runner } from "../src/index.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The acceptance pipeline of docs/pipelines.md: a 1,000-page async generator feeds an async embedder and a writer,
 * window 16. In flight = pages the generator handed out whose write has not finished; it is checked at every
 * change (each yield and each write), not sampled.
 */
describe("frames acceptance: 1,000 pages → embedder → writer, window 16", () => {
  it("never more than 16 pages in flight; every page embedded and written once, in page order", {
    timeout: 60_000,
  }, async () => {
    const PAGES = 1000;
    const WINDOW = 16;
    let inFlight = 0;
    let peak = 0;
    const embedded = new Array<number>(PAGES).fill(0);
    const writes = new Array<number>(PAGES).fill(0);
    const pages = node(
      { name: "pages", output: "page", frames: { window: WINDOW } },
      async function* pages({ count }: { count: number }) {
        for (let i = 0; i < count; i++) {
          if (i % 10 === 0) await sleep(1); // a page request now and then: the source is async
          inFlight++;
          peak = Math.max(peak, inFlight);
          expect(inFlight).toBeLessThanOrEqual(WINDOW);
          yield { id: i, body: `page ${i}` };
        }
      },
    );
    const embed = node(
      { name: "embed", output: "vector" },
      async function embed({ page }: { page: { id: number; body: string } }) {
        await sleep(page.id % 3); // uneven latencies: frames finish out of order
        embedded[page.id]!++;
        return [page.id, page.body.length];
      },
    );
    const write = node({ name: "write", output: "written" }, async function write({ vector }: { vector: number[] }) {
      await sleep(vector[0]! % 2);
      writes[vector[0]!]!++;
      inFlight--;
      return vector[0]!;
    });
    const events: GraphEvent[] = [];
    const runner = new Runner({ eventProcessors: [{ onEvent: (e) => void events.push(e) }] });
    const started = performance.now();
    const result = await runner.run(new Graph([pages, embed, write]), { values: { count: PAGES } });
    const ms = performance.now() - started;
    await runner.close();

    expect(result.status).toBe("completed");
    expect(peak).toBe(WINDOW);
    expect(inFlight).toBe(0);
    expect(embedded.every((n) => n === 1)).toBe(true);
    expect(writes.every((n) => n === 1)).toBe(true);
    expect(result.values.written).toEqual(Array.from({ length: PAGES }, (_, i) => i));
    const progress = events.filter((e) => e.type === "MapProgress" && e.nodeName === "pages");
    expect(progress).toHaveLength(PAGES);
    expect(progress.at(-1)).toMatchObject({ completed: PAGES, total: PAGES });
    // Reported, not asserted (no timed assertions in unit tests): the bench row `pipeline` measures it.
    console.log(`frames acceptance: ${PAGES} pages in ${ms.toFixed(0)} ms, peak in flight ${peak}`);
  });
});
