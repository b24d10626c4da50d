/** Items of a mapOver: zip (equal lengths) or product (first parameter slowest). Returns an Error on bad input. */
export function mapItems(
  where: string,
  params: readonly (readonly [string, unknown])[],
  mode: "zip" | "product",
): Record<string, unknown>[] | Error {
  for (const [name, value] of params) {
    if (!Array.isArray(value)) {
      return new TypeError(
        `'${where}' maps over '${name}', which must be an array but is ${value === null ? "null" : typeof value}.`,
      );
    }
  }
  const lists = params.map(([, v]) => v as unknown[]);
  if (mode === "zip") {
    const lengths = lists.map((l) => l.length);
    if (new Set(lengths).size > 1) {
      return new TypeError(
        `'${where}' zips inputs of different lengths: ${params.map(([n], i) => `'${n}' has ${lengths[i]}`).join(", ")}.\n  How to fix: pass equal-length arrays, or use mode "product".`,
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
  let out: Record<string, unknown>[] = [{}];
  params.forEach(([name], j) => {
    const next: Record<string, unknown>[] = [];
    for (const partial of out) for (const v of lists[j]!) next.push({ ...partial, [name]: v });
    out = next;
  });
  return lists.some((l) => l.length === 0) ? [] : out;
}
