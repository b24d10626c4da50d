import { isSpanContextValid, type SpanContext, TraceFlags } from "@opentelemetry/api";

/**
 * Remembers, per workflow, where its last top-level run was traced (a W3C `traceparent`), so the next run of the
 * workflow — the resume after a pause, a crash or a failure, or the next turn — links to it and one workflow reads
 * as one story across traces. The default keeps the last 10,000 workflows in memory (resumes in this process);
 * give a shared store (Redis, the database) to link runs resumed by another process. `get` and `set` may be async.
 *
 * @example
 * ```ts
 * const shared = new Map<string, string>();
 * const traceLinks: TraceLinkStore = { get: (id) => shared.get(id), set: (id, parent) => void shared.set(id, parent) };
 * ```
 */
export interface TraceLinkStore {
  get(workflowId: string): string | undefined | Promise<string | undefined>;
  set(workflowId: string, traceparent: string): void | Promise<void>;
}

/** The default {@link TraceLinkStore}: the newest `capacity` workflows, in memory. */
export function memoryTraceLinks(capacity = 10_000): TraceLinkStore {
  const links = new Map<string, string>();
  return {
    get: (workflowId) => links.get(workflowId),
    set(workflowId, traceparent) {
      links.delete(workflowId); // re-insert: Map order is the eviction order
      links.set(workflowId, traceparent);
      if (links.size > capacity) links.delete(links.keys().next().value!);
    },
  };
}

export function toTraceparent(ctx: SpanContext): string {
  return `00-${ctx.traceId}-${ctx.spanId}-${(ctx.traceFlags & 0xff).toString(16).padStart(2, "0")}`;
}

export function fromTraceparent(text: string | undefined): SpanContext | undefined {
  const m = text === undefined ? null : /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(text);
  if (m === null) return undefined;
  const ctx: SpanContext = {
    traceId: m[1]!,
    spanId: m[2]!,
    traceFlags: Number.parseInt(m[3]!, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return isSpanContextValid(ctx) ? ctx : undefined;
}
