import { createHash } from "node:crypto";

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Stable JSON for hashing configuration: sorted keys, functions by source, symbols by description. */
export function stableStringify(value: unknown): string {
  const seen = new WeakSet<object>();
  const walk = (v: unknown): unknown => {
    if (typeof v === "function") return `fn:${Function.prototype.toString.call(v)}`;
    if (typeof v === "symbol") return `sym:${v.description ?? ""}`;
    if (typeof v === "bigint") return `big:${v}`;
    if (v === undefined) return "undef";
    if (typeof v !== "object" || v === null) return v;
    if (seen.has(v)) return "[circular]";
    seen.add(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v instanceof Date) return `date:${v.toISOString()}`;
    if (v instanceof Map) return { $map: [...v.entries()].map(([k, x]) => [walk(k), walk(x)]) };
    if (v instanceof Set) return { $set: [...v].map(walk) };
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = walk((v as Record<string, unknown>)[k]);
    return out;
  };
  return JSON.stringify(walk(value));
}
