// runChunkItems: a chunk's items, 16 at a time in offset order, until one says the chunk is over.
import { describe, expect, it } from "vitest";
import { runChunkItems } from "../src/internal/chunkItems.js";

/** Items that each wait for the test to finish them, recording when they started. */
function controlled() {
  const started: number[] = [];
  const finish = new Map<number, (answer: boolean | Error) => void>();
  let running = 0;
  let peak = 0;
  const runItem = (offset: number) =>
    new Promise<boolean>((resolve, reject) => {
      started.push(offset);
      peak = Math.max(peak, ++running);
      finish.set(offset, (answer) => {
        running--;
        if (answer instanceof Error) reject(answer);
        else resolve(answer);
      });
    });
  const tick = () => new Promise((r) => setTimeout(r, 0));
  return { started, finish, runItem, tick, peak: () => peak };
}

describe("runChunkItems", () => {
  it("runs every item once, at most 16 at a time, starting them in offset order", async () => {
    const c = controlled();
    const done = runChunkItems(40, c.runItem);
    await c.tick();
    expect(c.started).toEqual(Array.from({ length: 16 }, (_, i) => i));
    // Finishing item 3 starts item 16, and so on: the next offset each time.
    c.finish.get(3)!(true);
    await c.tick();
    expect(c.started.at(-1)).toBe(16);
    for (let i = 0; i < 40; i++) {
      while (!c.finish.has(i)) await c.tick();
      if (i !== 3) c.finish.get(i)!(true);
    }
    expect(await done).toBe(40);
    expect(c.started).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(c.peak()).toBe(16);
  });

  it("an item that answers false ends the chunk: no later item starts, those running finish", async () => {
    const c = controlled();
    const done = runChunkItems(40, c.runItem);
    await c.tick();
    c.finish.get(0)!(true);
    await c.tick();
    c.finish.get(1)!(false);
    await c.tick();
    // Item 16 took item 0's place before item 1 ended the chunk; nothing starts after that.
    expect(c.started).toEqual(Array.from({ length: 17 }, (_, i) => i));
    for (let i = 2; i <= 16; i++) c.finish.get(i)!(true);
    expect(await done).toBe(16);
    expect(c.started).toHaveLength(17);
  });

  it("rejects with the item's own error, and starts nothing after it", async () => {
    const c = controlled();
    const done = runChunkItems(40, c.runItem);
    await c.tick();
    const boom = new Error("the store is gone");
    c.finish.get(5)!(boom);
    await expect(done).rejects.toBe(boom);
    await c.tick();
    expect(c.started).toEqual(Array.from({ length: 16 }, (_, i) => i));
  });

  it("an empty chunk runs nothing", async () => {
    let calls = 0;
    expect(await runChunkItems(0, async () => (calls++, true))).toBe(0);
    expect(calls).toBe(0);
  });
});
