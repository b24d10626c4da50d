// Runtime events → the page's events: flattened, previewed, and placed by node path from the root graph. Nested
// runs report under their GraphNode's path; map items also carry their index, so the page can count how many
// items completed, failed or were stopped instead of trusting a single done/total counter.
import type { GraphEvent, PauseInfo } from "@graph/runtime";
import type { PageEvent } from "../EventLog.js";
import { errorMessage, preview, previewRecord } from "../preview.js";

interface RunInfo {
  readonly root: string;
  /** Node path prefix of this run: "" for the root, "research/" for a nested run. */
  readonly prefix: string;
  /** For a map item: its index in the mapped GraphNode. */
  readonly item: number | undefined;
  readonly nodeSpans: Set<string>;
}

interface NodeAt {
  readonly path: string;
  readonly root: string;
  /** The workflow and name the node runs under (map items' workflow ids derive from them). */
  readonly workflowId: string;
  readonly nodeName: string;
}

/** The last pause of a top-level run seen live, with the raw value (the page only gets a preview). */
export type LivePause = Pick<PauseInfo, "nodeName" | "value" | "responseKey">;

type PageFields = Omit<PageEvent, "id">;

/**
 * Remembers the span tree of live runs and translates each event. One instance per devtools.
 *
 * @example
 * ```ts
 * const translator = new PageEvents(2000);
 * const page = translator.translate(event); // undefined for events the page doesn't show
 * ```
 */
export class PageEvents {
  readonly #max: number;
  readonly #runs = new Map<string, RunInfo>();
  readonly #nodes = new Map<string, NodeAt>();
  /**
   * Root workflow → its graph's name, last unanswered pause, and how many of its events the runtime dropped before
   * they reached this devtools (`EventsDropped`, when it is fed from a run handle's bounded `events`).
   */
  readonly roots = new Map<
    string,
    { graph: string; pause: LivePause | undefined; running: boolean; dropped: number }
  >();

  constructor(previewLength: number) {
    this.#max = previewLength;
  }

  translate(event: GraphEvent): PageFields | undefined {
    const base = { type: event.type, workflowId: event.workflowId, timestamp: event.timestamp };
    switch (event.type) {
      case "RunStart":
        return this.#runStart(event, base);
      case "EventsDropped": {
        const root = this.#rootOf(event.workflowId);
        const known = this.roots.get(root);
        const dropped = (known?.dropped ?? 0) + event.count;
        if (known === undefined) this.roots.set(root, { graph: "graph", pause: undefined, running: true, dropped });
        else known.dropped = dropped;
        return { ...base, root, count: event.count, dropped, ...(known === undefined ? {} : { graph: known.graph }) };
      }
      case "RunEnd": {
        const run = this.#runs.get(event.spanId) ?? this.#adopt(event.workflowId, event.spanId);
        if (run === undefined) return undefined;
        this.#runs.delete(event.spanId);
        for (const s of run.nodeSpans) this.#nodes.delete(s);
        if (run.prefix === "") {
          const root = this.roots.get(run.root);
          if (root !== undefined) root.running = false;
        }
        return {
          ...base,
          root: run.root,
          path: run.prefix.slice(0, -1),
          ...(run.item === undefined ? {} : { item: run.item }),
          status: event.status,
          durationMs: event.durationMs,
          error: event.error === undefined ? undefined : errorMessage(event.error),
        };
      }
      case "NodeStart": {
        const run =
          event.parentSpanId === undefined
            ? undefined
            : (this.#runs.get(event.parentSpanId) ?? this.#adopt(event.workflowId, event.parentSpanId));
        if (run === undefined) return undefined;
        const path = `${run.prefix}${event.nodeName}`;
        this.#nodes.set(event.spanId, { path, root: run.root, workflowId: event.workflowId, nodeName: event.nodeName });
        run.nodeSpans.add(event.spanId);
        const inputs = previewRecord(event.inputs, this.#max);
        return { ...base, root: run.root, path, nodeType: event.nodeType, inputs };
      }
      case "NodeEnd": {
        // Replayed steps are reported on the run's span, with no NodeStart: history from an earlier run.
        const at = event.replayed
          ? this.#runPath(event.spanId, event.nodeName, event.workflowId)
          : (this.#nodes.get(event.spanId) ?? this.#adoptedNode(event.workflowId, event.nodeName));
        if (at === undefined) return undefined;
        return {
          ...base,
          root: at.root,
          path: at.path,
          status: event.status,
          replayed: event.replayed,
          cached: event.cached,
          truncated: event.truncated,
          durationMs: event.durationMs,
          outputs: previewRecord(event.outputs, this.#max),
        };
      }
      case "NodeError": {
        const at = this.#nodes.get(event.spanId) ?? this.#adoptedNode(event.workflowId, event.nodeName);
        if (at === undefined) return undefined;
        const retry = { attempt: event.attempt, willRetry: event.willRetry };
        return { ...base, root: at.root, path: at.path, error: errorMessage(event.error), ...retry };
      }
      case "Paused": {
        const at = this.#nodes.get(event.spanId) ?? this.#adoptedNode(event.workflowId, event.nodeName);
        if (at === undefined) return undefined;
        const root = this.roots.get(at.root);
        // Only the top-level run's pause is answerable: its responseKey is the outer name.
        if (root !== undefined && at.root === event.workflowId)
          root.pause = { nodeName: event.nodeName, value: event.value, responseKey: event.responseKey };
        const value = preview(event.value, this.#max);
        return {
          ...base,
          root: at.root,
          path: at.path,
          nodeName: event.nodeName,
          responseKey: event.responseKey,
          value,
        };
      }
      case "MapProgress":
      case "CacheHit": {
        const at = this.#nodes.get(event.spanId) ?? this.#adoptedNode(event.workflowId, event.nodeName);
        if (at === undefined) return undefined;
        const extra = event.type === "MapProgress" ? { completed: event.completed, total: event.total } : {};
        return { ...base, root: at.root, path: at.path, ...extra };
      }
      case "RouteDecision": {
        const at = this.#runPath(event.spanId, event.gate, event.workflowId);
        if (at === undefined) return undefined;
        const d = event.decision;
        const one = (t: unknown) => (typeof t === "symbol" ? "END" : String(t));
        const decision = d === null ? null : Array.isArray(d) ? d.map(one) : [one(d)];
        return { ...base, root: at.root, path: at.path, decision, replayed: event.replayed };
      }
      case "StopRequested":
        return { ...base, root: event.workflowId, info: preview(event.info, 200) };
      case "Warning": {
        const run = this.#runs.get(event.spanId);
        return { ...base, root: run?.root ?? event.workflowId, message: event.message };
      }
      case "NodeWaiting": {
        const at = this.#runPath(event.spanId, event.nodeName, event.workflowId);
        if (at === undefined) return undefined;
        return {
          ...base,
          root: at.root,
          path: at.path,
          nodeName: event.nodeName,
          limitKind: event.limitKind,
          where: event.where,
          key: event.key,
          limit: event.limit,
          active: event.active,
          queued: event.queued,
        };
      }
      default:
        // StreamingChunk (one per token: too many for the page), SuperstepStart, CheckpointSaved.
        return undefined;
    }
  }

  #runStart(event: Extract<GraphEvent, { type: "RunStart" }>, base: PageFields | Record<string, unknown>) {
    let info: RunInfo;
    if (event.parentSpanId === undefined) {
      info = { root: event.workflowId, prefix: "", item: undefined, nodeSpans: new Set() };
      const dropped = this.roots.get(event.workflowId)?.dropped ?? 0;
      this.roots.set(event.workflowId, { graph: event.graphName ?? "graph", pause: undefined, running: true, dropped });
    } else {
      const parent = this.#nodes.get(event.parentSpanId);
      if (parent === undefined) return undefined;
      // A map item's workflow is `<parent workflow>/<node>/<index>`; a nested graph's is `<parent>/<node>`.
      const itemPrefix = `${parent.workflowId}/${parent.nodeName}/`;
      const index = event.workflowId.startsWith(itemPrefix) ? Number(event.workflowId.slice(itemPrefix.length)) : NaN;
      const item = Number.isInteger(index) ? index : undefined;
      info = { root: parent.root, prefix: `${parent.path}/`, item, nodeSpans: new Set() };
    }
    this.#runs.set(event.spanId, info);
    const graph = event.graphName ?? "graph";
    const path = info.prefix.slice(0, -1);
    return {
      ...(base as PageFields),
      root: info.root,
      depth: event.depth,
      graph,
      path,
      ...(info.item === undefined ? {} : { item: info.item }),
    };
  }

  #runPath(runSpan: string, nodeName: string, workflowId: string): { path: string; root: string } | undefined {
    const run = this.#runs.get(runSpan) ?? this.#adopt(workflowId, runSpan);
    return run === undefined ? undefined : { path: `${run.prefix}${nodeName}`, root: run.root };
  }

  /** The root a workflow id belongs to: the longest known root it is or lies under, else its first segment. */
  #rootOf(workflowId: string): string {
    for (let id = workflowId; ; ) {
      if (this.roots.has(id)) return id;
      const cut = id.lastIndexOf("/");
      if (cut <= 0) return workflowId.split("/")[0] || workflowId;
      id = id.slice(0, cut);
    }
  }

  /**
   * The run of a top-level workflow whose `RunStart` was dropped (the runtime said so with `EventsDropped`): its
   * events still place its nodes at the top level. Nested runs whose start was dropped stay unplaced.
   */
  #adopt(workflowId: string, runSpan: string): RunInfo | undefined {
    if (!((this.roots.get(workflowId)?.dropped ?? 0) > 0)) return undefined;
    const info: RunInfo = { root: workflowId, prefix: "", item: undefined, nodeSpans: new Set() };
    this.#runs.set(runSpan, info);
    return info;
  }

  /** A node of such a run whose `NodeStart` was dropped too. */
  #adoptedNode(workflowId: string, nodeName: string): NodeAt | undefined {
    if (!((this.roots.get(workflowId)?.dropped ?? 0) > 0)) return undefined;
    return { path: nodeName, root: workflowId, workflowId, nodeName };
  }
}
