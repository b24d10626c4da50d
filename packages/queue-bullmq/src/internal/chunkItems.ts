/**
 * How a chunk job runs its items, for both kinds of distributed map (a `remote.map` and a mapped GraphNode): a few
 * at a time, in order of start, until one says the chunk is over.
 */
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";

/** Items of one chunk run at once, unless the map says fewer. */
const ITEM_CONCURRENCY = 16;

/**
 * Runs `runItem(offset)` for every offset of a chunk of `count` items, `concurrency` ({@link ITEM_CONCURRENCY}) at a time, started in
 * offset order. An item that answers `false` ends the chunk (the map was stopped, or the run moved on): no further
 * item starts, those running finish. Resolves to how many items answered `true`; rejects with the first item's
 * error (no further item starts; those running are not awaited).
 */
export async function runChunkItems(
  count: number,
  runItem: (offset: number) => Promise<boolean>,
  concurrency: number = ITEM_CONCURRENCY,
): Promise<number> {
  let ran = 0;
  let over = false;
  const item = (offset: number) =>
    Effect.suspend(() =>
      over
        ? Effect.void
        : Effect.map(
            Effect.tryPromise({ try: () => runItem(offset), catch: (error) => error }),
            (answer) => void (answer ? ran++ : (over = true)),
          ),
    );
  const exit = await Effect.runPromiseExit(
    Effect.forEach(
      Array.from({ length: count }, (_, offset) => offset),
      item,
      { concurrency, discard: true },
    ),
  );
  if (Exit.isFailure(exit)) throw Cause.squash(exit.cause);
  return ran;
}
