import { MapInputError, type MappedList } from "../errors.js";

/** The most items a `product` map may expand to (ten million item records already take gigabytes). */
const MAX_PRODUCT_ITEMS = 10_000_000;

/** Items of a mapOver: zip (equal lengths) or product (first parameter slowest). Returns an Error on bad input. */
export function mapItems(
  where: string,
  params: readonly (readonly [string, unknown])[],
  mode: "zip" | "product",
): Record<string, unknown>[] | MapInputError {
  const mapped: readonly MappedList[] = params.map(([name, v]) => ({
    name,
    length: Array.isArray(v) ? v.length : undefined,
  }));
  for (const [name, value] of params) {
    if (!Array.isArray(value)) {
      // A run-time value, so the run fails with a NodeExecutionError naming the node; this is its cause.
      return new MapInputError(
        `'${where}' maps over '${name}', which must be an array but is ${value === null ? "null" : typeof value}.\n` +
          `  How to fix: pass an array for '${name}' (one item per child run, [] for none), or leave '${name}' out of mapOver to give every item the same value.`,
        where,
        "notAnArray",
        mapped,
      );
    }
  }
  const lists = params.map(([, v]) => v as unknown[]);
  if (mode === "zip") {
    const lengths = lists.map((l) => l.length);
    if (new Set(lengths).size > 1) {
      return new MapInputError(
        `'${where}' zips inputs of different lengths: ${params.map(([n], i) => `'${n}' has ${lengths[i]}`).join(", ")}.\n  How to fix: pass equal-length arrays, or use mode "product".`,
        where,
        "unequalLengths",
        mapped,
      );
    }
    const length = lengths[0] ?? 0;
    const out: Record<string, unknown>[] = new Array(length);
    for (let i = 0; i < length; i++) {
      const item: Record<string, unknown> = {};
      params.forEach(([name], j) => {
        item[name] = lists[j]![i];
      });
      out[i] = item;
    }
    return out;
  }
  // Checked before building anything: a product of a few long lists would otherwise exhaust memory, not fail.
  const total = lists.reduce((n, l) => n * l.length, 1);
  if (total > MAX_PRODUCT_ITEMS) {
    return new MapInputError(
      `'${where}' maps over the product of ${params.map(([n], i) => `'${n}' (${lists[i]!.length})`).join(" × ")} = ${total} items, more than ${MAX_PRODUCT_ITEMS} in one map.\n` +
        `  How to fix: use mode "zip" with lists you pair up yourself, or split the input into several runs.`,
      where,
      "tooManyItems",
      mapped,
    );
  }
  let out: Record<string, unknown>[] = [{}];
  params.forEach(([name], j) => {
    const next: Record<string, unknown>[] = [];
    for (const partial of out) for (const v of lists[j]!) next.push({ ...partial, [name]: v });
    out = next;
  });
  return lists.some((l) => l.length === 0) ? [] : out;
}
