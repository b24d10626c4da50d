import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

/** A tracer provider that keeps every finished span in memory. */
export function memoryTracing(): { provider: BasicTracerProvider; exporter: InMemorySpanExporter } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { provider, exporter };
}

const SHOWN = [
  "graph.workflow_id",
  "graph.item_index",
  "graph.node.type",
  "graph.superstep",
  "graph.attempt",
  "graph.cached",
  "graph.status",
  "error.type",
] as const;

/**
 * The span tree as indented lines: `name {attributes} [events]`, siblings ordered by superstep, item index, then
 * start time (ties keep the exporter's order, which is the order spans ended).
 */
export function renderTree(
  spans: readonly ReadableSpan[],
  options: { events?: (name: string) => boolean } = {},
): string[] {
  const keep = options.events ?? (() => true);
  const byParent = new Map<string | undefined, ReadableSpan[]>();
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  for (const s of spans) {
    const parent = s.parentSpanContext?.spanId;
    const key = parent !== undefined && ids.has(parent) ? parent : undefined;
    (byParent.get(key) ?? byParent.set(key, []).get(key)!).push(s);
  }
  const num = (s: ReadableSpan, k: string) => Number(s.attributes[k] ?? 0);
  // Sync nodes of consecutive supersteps often start in the same millisecond: order by superstep first.
  const order = (a: ReadableSpan, b: ReadableSpan) =>
    num(a, "graph.superstep") - num(b, "graph.superstep") ||
    num(a, "graph.item_index") - num(b, "graph.item_index") ||
    toMs(a.startTime) - toMs(b.startTime);
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    for (const s of [...(byParent.get(parent) ?? [])].sort(order)) {
      const attrs = SHOWN.filter((k) => s.attributes[k] !== undefined)
        .filter((k) => k !== "graph.workflow_id" || s.name.startsWith("invoke_workflow"))
        .map((k) => `${k.replace(/^graph\./, "")}=${String(s.attributes[k])}`);
      const events = s.events.map((e) => e.name).filter(keep);
      lines.push(
        `${"  ".repeat(depth)}${s.name} {${attrs.join(" ")}}${events.length > 0 ? ` [${events.join(", ")}]` : ""}`,
      );
      walk(s.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines;
}

function toMs(t: readonly [number, number]): number {
  return t[0] * 1000 + t[1] / 1e6;
}
