/** Structural equality for values in state (used to decide whether a re-supplied input changed). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (a instanceof Date) return a.getTime() === (b as Date).getTime();
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => deepEqual(v, bb[i]));
  }
  if (a instanceof Map) {
    const bm = b as Map<unknown, unknown>;
    if (a.size !== bm.size) return false;
    for (const [k, v] of a) if (!bm.has(k) || !deepEqual(v, bm.get(k))) return false;
    return true;
  }
  if (a instanceof Set) {
    const bs = b as Set<unknown>;
    if (a.size !== bs.size) return false;
    for (const v of a) if (!bs.has(v)) return false;
    return true;
  }
  if (ArrayBuffer.isView(a)) {
    const x = a as unknown as ArrayLike<number>;
    const y = b as unknown as ArrayLike<number>;
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    return true;
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka)
    if (!Object.hasOwn(b, k) || !deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
      return false;
  return true;
}

/** A stable text key for cache lookups: sorted object keys; Dates, Maps, Sets, BigInts and undefined encoded. */
export function stableKey(value: unknown): string {
  const seen = new WeakSet<object>();
  const walk = (v: unknown): unknown => {
    if (v === undefined) return { $u: 1 };
    if (typeof v === "bigint") return { $b: v.toString() };
    if (typeof v === "function" || typeof v === "symbol")
      throw new TypeError("cache keys can't contain functions or symbols");
    if (typeof v !== "object" || v === null) return v;
    if (seen.has(v)) throw new TypeError("cache keys can't contain circular values");
    seen.add(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v instanceof Date) return { $d: v.toISOString() };
    if (v instanceof Map) return { $m: [...v].map(([k, x]) => [walk(k), walk(x)]) };
    if (v instanceof Set) return { $s: [...v].map(walk) };
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = walk((v as Record<string, unknown>)[k]);
    return out;
  };
  return JSON.stringify(walk(value));
}
