/**
 * A distributed map: items split into chunk jobs (children of one gather job, added as one BullMQ flow), each chunk
 * running its items as child workflows on the shared checkpointer; the gather job runs once every chunk finished
 * (it holds no worker slot meanwhile) and reads the items' results from the checkpointer in item order.
 */
import type { WireRunOptions } from "./wire.js";

/** The data of a chunk job: which items; their values are in Redis under the chunk's key. */
export interface ChunkJobData {
  readonly kind: "chunk";
  readonly mapId: string;
  readonly graphName: string;
  readonly definitionHash: string;
  readonly chunk: number;
  readonly start: number;
  readonly end: number;
  readonly options: WireRunOptions;
}

/** The data of the gather job (the chunks' parent). */
export interface GatherJobData {
  readonly kind: "gather";
  readonly mapId: string;
  readonly graphName: string;
  readonly definitionHash: string;
  readonly submission: string;
  readonly total: number;
  readonly chunks: number;
  readonly errorHandling: "raise" | "continue";
}

/** `[start, end)` of every chunk of `total` items. */
export function chunkRanges(total: number, chunkSize: number): readonly (readonly [number, number])[] {
  if (!Number.isInteger(chunkSize) || chunkSize < 1)
    throw new RangeError(`chunkSize must be an integer ≥ 1, got ${chunkSize}`);
  const ranges: [number, number][] = [];
  for (let start = 0; start < total; start += chunkSize) ranges.push([start, Math.min(total, start + chunkSize)]);
  return ranges;
}

/** The workflow id of item `i` of a map (the runtime's `runner.map` naming). */
export const itemWorkflowId = (mapId: string, i: number): string => `${mapId}/${i}`;

/**
 * The items of a map: each a record of the mapped values, by position (`zip`, equal lengths) or every combination
 * (`product`, the first key varying slowest).
 */
export function mapItems(
  values: Readonly<Record<string, unknown>>,
  mapOver: readonly string[],
  mode: "zip" | "product",
): Record<string, unknown>[] {
  const columns = mapOver.map((k) => {
    const column = values[k];
    if (!Array.isArray(column))
      throw new TypeError(`mapOver '${k}': expected an array in values['${k}'], got ${typeof column}.`);
    return column as unknown[];
  });
  if (mode === "zip") {
    const n = columns[0]?.length ?? 0;
    columns.forEach((c, j) => {
      if (c.length !== n)
        throw new TypeError(
          `mapOver (zip): '${mapOver[j]}' has ${c.length} items, '${mapOver[0]}' has ${n}. Use mapMode "product" for every combination.`,
        );
    });
    return Array.from({ length: n }, (_, i) => Object.fromEntries(mapOver.map((k, j) => [k, columns[j]![i]])));
  }
  let items: Record<string, unknown>[] = [{}];
  mapOver.forEach((k, j) => {
    items = items.flatMap((item) => columns[j]!.map((v) => ({ ...item, [k]: v })));
  });
  return items;
}
