/**
 * Structural equality for values in state (used to decide whether a re-supplied input changed). A value restored
 * from a checkpoint is a copy, so Map keys and Set members that are objects are matched structurally too (one to
 * one), and two invalid Dates are equal.
 *
 * Why not `util.isDeepStrictEqual`: on the values a checkpoint holds it gives the same answers (NaN, -0, Maps with
 * object keys, Sets of objects, cycles, prototypes, Uint8Array — pinned by a test), except that Node 20 calls two
 * invalid Dates different (it compares `getTime()` with `!==`). The checkpoint format stores invalid Dates, so a
 * resume re-supplying one would count as a change and re-run its consumers.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  return equal(a, b, new Map());
}

function equal(a: unknown, b: unknown, seen: Map<object, object>): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  // Cycles: a pair already being compared further up is assumed equal (the rest of the walk decides).
  if (seen.get(a) === b) return true;
  seen.set(a, b);
  const result = equalObjects(a, b, seen);
  seen.delete(a);
  return result;
}

function equalObjects(a: object, b: object, seen: Map<object, object>): boolean {
  if (a instanceof Date) return Object.is(a.getTime(), (b as Date).getTime());
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    // An index loop, not `every`: a hole must be compared too (it reads as undefined, as a restored copy has it).
    for (let i = 0; i < a.length; i++) if (!equal(a[i], bb[i], seen)) return false;
    return true;
  }
  if (a instanceof Map) {
    const bm = b as Map<unknown, unknown>;
    if (a.size !== bm.size) return false;
    const unmatched: Array<[unknown, unknown]> = [];
    for (const [k, v] of a) {
      if (bm.has(k)) {
        if (!equal(v, bm.get(k), seen)) return false;
      } else if (typeof k === "object" && k !== null) unmatched.push([k, v]);
      else return false;
    }
    if (unmatched.length === 0) return true;
    const candidates = [...bm].filter(([k]) => typeof k === "object" && k !== null && !a.has(k));
    return matchAll(unmatched, candidates, ([ka, va], [kb, vb]) => equal(ka, kb, seen) && equal(va, vb, seen));
  }
  if (a instanceof Set) {
    const bs = b as Set<unknown>;
    if (a.size !== bs.size) return false;
    const unmatched: unknown[] = [];
    for (const v of a) {
      if (bs.has(v)) continue;
      if (typeof v === "object" && v !== null) unmatched.push(v);
      else return false;
    }
    if (unmatched.length === 0) return true;
    const candidates = [...bs].filter((v) => typeof v === "object" && v !== null && !a.has(v));
    return matchAll(unmatched, candidates, (x, y) => equal(x, y, seen));
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
    if (!Object.hasOwn(b, k) || !equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], seen))
      return false;
  return true;
}

/** Pairs every item of `xs` with a distinct item of `ys` (greedy: equal values are interchangeable). */
function matchAll<T>(xs: readonly T[], ys: readonly T[], same: (x: T, y: T) => boolean): boolean {
  if (xs.length !== ys.length) return false;
  const used = new Set<number>();
  for (const x of xs) {
    const i = ys.findIndex((y, j) => !used.has(j) && same(x, y));
    if (i < 0) return false;
    used.add(i);
  }
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
