/**
 * How a chunk job runs its items, for both kinds of distributed map (a `remote.map` and a mapped GraphNode): a few
 * at a time, in order of start, until one says the chunk is over.
 */

/** Items of one chunk run at once. */
const ITEM_CONCURRENCY = 16;

/**
 * Runs `runItem(offset)` for every offset of a chunk of `count` items, {@link ITEM_CONCURRENCY} at a time. An item
 * that answers `false` ends the chunk (the map was stopped, or the run moved on): no further item starts, those
 * running finish. Resolves to how many items answered `true`.
 */
export async function runChunkItems(count: number, runItem: (offset: number) => Promise<boolean>): Promise<number> {
  let next = 0;
  let ran = 0;
  let over = false;
  const lane = async (): Promise<void> => {
    while (!over) {
      const offset = next++;
      if (offset >= count) return;
      if (await runItem(offset)) ran++;
      else over = true;
    }
  };
  await Promise.all(Array.from({ length: Math.min(ITEM_CONCURRENCY, count) }, lane));
  return ran;
}
