import type { GraphEvent, NodeCall } from "@graph/runtime";
import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import { bindIterator } from "./bindIterator.js";
import { errorType, payload } from "./payload.js";
import { fromTraceparent, memoryTraceLinks, type TraceLinkStore, toTraceparent } from "./traceLinks.js";

/** Options of {@link OtelProcessor}. */
export interface OtelOptions {
  /** Where spans go. Default: the global provider (`trace.getTracerProvider()`). */
  readonly tracerProvider?: TracerProvider;
  /** Added to every span (e.g. `{ "deployment.environment": "prod" }`). */
  readonly attributes?: Attributes;
  /**
   * Record node inputs/outputs and interrupt values as span attributes (JSON, cut to `maxLength` characters).
   * Off by default: payloads often hold personal data and can be large.
   */
  readonly payloads?: boolean | { readonly maxLength?: number };
  /**
   * Span links between the runs of one workflow: a top-level run's span links to the previous run's (the paused,
   * crashed or failed one it resumes, or the previous turn), with `graph.link = "previous_run"`. Default: runs of
   * this process, remembered in memory; pass a shared {@link TraceLinkStore} to link across processes, or `false`.
   */
  readonly traceLinks?: TraceLinkStore | false;
}

interface RunSpan {
  readonly span: Span;
  /** The context with this run's span active: the parent of its node spans. */
  readonly ctx: Context;
  superstep: number;
  /** Events of this workflow the runtime dropped before this processor saw them (`EventsDropped`). */
  dropped?: number;
}

interface NodeSpan {
  readonly span: Span;
  readonly ctx: Context;
  readonly run: RunSpan;
  readonly workflowId: string;
  readonly nodeName: string;
  attempt: number;
}

const TRACER_NAME = "@graph/otel";
const DEFAULT_MAX_LENGTH = 1000;

/**
 * An event processor that turns a runner's events into OpenTelemetry spans: one `invoke_workflow {graph}` span per
 * run, one `node {name}` child span per node execution, nested runs and map items as run spans under their
 * GraphNode's span, and decisions, pauses, stops, cache hits, checkpoint saves and retries as span events. While a
 * node's function runs, its span is the active context, so instrumented clients called inside it nest under it.
 * Replayed nodes (restored from a checkpoint) get no span.
 *
 * @example
 * ```ts
 * import { OtelProcessor } from "@graph/otel";
 * const runner = new Runner({ eventProcessors: [new OtelProcessor({ attributes: { "service.name": "support" } })] });
 * ```
 */
export class OtelProcessor {
  readonly #tracer: Tracer;
  readonly #attributes: Attributes;
  readonly #maxPayload: number | undefined;
  readonly #runs = new Map<string, RunSpan>();
  /** Top-level runs by workflow id: `StopRequested` names the workflow, not a span. */
  readonly #roots = new Map<string, RunSpan>();
  readonly #nodes = new Map<string, NodeSpan>();
  readonly #links: TraceLinkStore | undefined;
  /** Spans standing in for top-level runs whose `RunStart` was dropped, by workflow id. */
  readonly #standIns = new Map<string, RunSpan>();

  constructor(options: OtelOptions = {}) {
    this.#tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(TRACER_NAME, "0.1.0");
    this.#attributes = options.attributes ?? {};
    this.#links = options.traceLinks === false ? undefined : (options.traceLinks ?? memoryTraceLinks());
    const p = options.payloads;
    this.#maxPayload =
      p === undefined || p === false
        ? undefined
        : p === true
          ? DEFAULT_MAX_LENGTH
          : (p.maxLength ?? DEFAULT_MAX_LENGTH);
  }

  onEvent(event: GraphEvent): void {
    switch (event.type) {
      case "RunStart":
        this.#runStart(event);
        return;
      case "RunEnd":
        this.#runEnd(event);
        return;
      case "EventsDropped":
        this.#eventsDropped(event);
        return;
      case "SuperstepStart": {
        const run = this.#run(event.spanId, event.workflowId);
        if (run !== undefined) run.superstep = event.superstep;
        return;
      }
      case "NodeStart":
        this.#nodeStart(event);
        return;
      case "NodeEnd":
        this.#nodeEnd(event);
        return;
      case "NodeError":
        this.#nodeError(event);
        return;
      case "Paused":
        this.#paused(event);
        return;
      case "RouteDecision": {
        // A replayed decision was made (and traced) by an earlier run.
        if (event.replayed) return;
        const decision = decisionText(event.decision);
        this.#run(event.spanId, event.workflowId)?.span.addEvent(
          "route_decision",
          { "graph.gate": event.gate, "graph.decision": decision },
          event.timestamp,
        );
        return;
      }
      case "StopRequested": {
        const info = event.info === undefined ? {} : { "graph.stop.info": payload(event.info, 200) };
        this.#roots.get(event.workflowId)?.span.addEvent("stop_requested", info, event.timestamp);
        return;
      }
      case "NodeWaiting":
        this.#run(event.spanId, event.workflowId)?.span.addEvent(
          "node_waiting",
          {
            "graph.node.name": event.nodeName,
            "graph.limit.kind": event.limitKind,
            "graph.limit.where": event.where,
            "graph.limit.key": event.key,
            "graph.limit.limit": event.limit,
            ...(event.active === undefined ? {} : { "graph.limit.active": event.active }),
            ...(event.queued === undefined ? {} : { "graph.limit.queued": event.queued }),
          },
          event.timestamp,
        );
        return;
      case "CacheHit": {
        const node = this.#nodes.get(event.spanId);
        node?.span.setAttribute("graph.cached", true);
        node?.span.addEvent("cache_hit", {}, event.timestamp);
        return;
      }
      case "CheckpointSaved":
        this.#run(event.spanId, event.workflowId)?.span.addEvent(
          "checkpoint_saved",
          { "graph.superstep": event.superstep, "graph.node.name": event.nodeName },
          event.timestamp,
        );
        return;
      case "Warning":
        this.#run(event.spanId, event.workflowId)?.span.addEvent(
          "warning",
          { "graph.warning": event.message },
          event.timestamp,
        );
        return;
      default:
        return; // StreamingChunk, MapProgress: too fine-grained for spans
    }
  }

  /** Makes the node's span the active context while its function runs (generators: on every step). */
  aroundNode<T>(node: NodeCall, call: () => T): T {
    const span = this.#nodes.get(node.spanId);
    if (span === undefined) return call();
    return context.with(span.ctx, () => bindIterator(call(), span.ctx));
  }

  /** Ends spans still open (a run cut off by `runner.close()`), so nothing is lost at exit. */
  shutdown(): void {
    for (const n of this.#nodes.values()) n.span.end();
    for (const r of this.#runs.values()) r.span.end();
    for (const r of this.#standIns.values()) if (![...this.#runs.values()].includes(r)) r.span.end();
    this.#nodes.clear();
    this.#runs.clear();
    this.#roots.clear();
    this.#standIns.clear();
  }

  /** A run by its span; a span of a run whose start was dropped gets the workflow's stand-in. */
  #run(spanId: string, workflowId: string): RunSpan | undefined {
    const run = this.#runs.get(spanId);
    if (run !== undefined) return run;
    const standIn = this.#standIns.get(workflowId);
    if (standIn !== undefined) this.#runs.set(spanId, standIn);
    return standIn;
  }

  /**
   * `EventsDropped` (a run handle's buffer overflowed before it was read into this processor): the workflow's run
   * span gets an `events_dropped` event with the count and the total as `graph.events.dropped`, so the trace says it
   * is incomplete. When the run's start was dropped, a span stands in for it (`graph.events.incomplete`), so the
   * events that were kept still have a parent.
   */
  #eventsDropped(event: Extract<GraphEvent, { type: "EventsDropped" }>): void {
    const rootId = this.#rootOf(event.workflowId);
    let run = this.#roots.get(rootId);
    if (run === undefined) {
      const attributes: Attributes = {
        ...this.#attributes,
        "gen_ai.operation.name": "invoke_workflow",
        "graph.workflow_id": rootId,
        "graph.events.incomplete": true,
      };
      const span = this.#tracer.startSpan(
        "invoke_workflow",
        { kind: SpanKind.INTERNAL, startTime: event.timestamp, attributes },
        context.active(),
      );
      run = { span, ctx: trace.setSpan(context.active(), span), superstep: 0 };
      this.#roots.set(rootId, run);
      this.#standIns.set(rootId, run);
    }
    run.dropped = (run.dropped ?? 0) + event.count;
    run.span.setAttribute("graph.events.dropped", run.dropped);
    run.span.addEvent(
      "events_dropped",
      { "graph.events.dropped": event.count, "graph.workflow_id": event.workflowId },
      event.timestamp,
    );
  }

  /** The top-level workflow a workflow id belongs to: a known one it is or lies under, else its first segment. */
  #rootOf(workflowId: string): string {
    for (let id = workflowId; ; ) {
      if (this.#roots.has(id)) return id;
      const cut = id.lastIndexOf("/");
      if (cut <= 0) return workflowId.split("/")[0] || workflowId;
      id = id.slice(0, cut);
    }
  }

  #runStart(event: Extract<GraphEvent, { type: "RunStart" }>): void {
    const parentNode = event.parentSpanId === undefined ? undefined : this.#nodes.get(event.parentSpanId);
    // A top-level run nests under whatever span is active where the caller started it (an HTTP request, a job).
    const parentCtx = parentNode?.ctx ?? context.active();
    const name = event.graphName ?? "graph";
    const attributes: Attributes = {
      ...this.#attributes,
      "gen_ai.operation.name": "invoke_workflow",
      "gen_ai.workflow.name": name,
      "graph.workflow_id": event.workflowId,
      "graph.run_id": event.runId,
      "graph.definition_hash": event.definitionHash,
      "graph.depth": event.depth,
    };
    if (parentNode !== undefined) {
      // Map items run as `<parent>/<node>/<index>`.
      const itemPrefix = `${parentNode.workflowId}/${parentNode.nodeName}/`;
      if (event.workflowId.startsWith(itemPrefix)) {
        const index = Number(event.workflowId.slice(itemPrefix.length));
        if (Number.isInteger(index)) attributes["graph.item_index"] = index;
      }
    }
    const span = this.#tracer.startSpan(
      `invoke_workflow ${name}`,
      { kind: SpanKind.INTERNAL, startTime: event.timestamp, attributes },
      parentCtx,
    );
    const run: RunSpan = { span, ctx: trace.setSpan(parentCtx, span), superstep: 0 };
    this.#runs.set(event.spanId, run);
    if (event.depth === 0) {
      this.#roots.set(event.workflowId, run);
      this.#linkToPreviousRun(event.workflowId, event.spanId, span);
    }
  }

  /** Links a top-level run's span to the workflow's previous run, then remembers this one for the next. */
  #linkToPreviousRun(workflowId: string, runSpanId: string, span: Span): void {
    const store = this.#links;
    if (store === undefined) return;
    const link = (previous: string | undefined) => {
      const context = fromTraceparent(previous);
      // A store that answers late must not add a link to a span that already ended.
      if (context === undefined || this.#runs.get(runSpanId)?.span !== span) return;
      span.addLink({ context, attributes: { "graph.link": "previous_run", "graph.workflow_id": workflowId } });
    };
    const done = (error: unknown) =>
      span.addEvent("warning", { "graph.warning": `trace link store: ${messageOf(error)}` });
    try {
      const previous = store.get(workflowId);
      if (previous instanceof Promise) previous.then(link, done);
      else link(previous);
      const saved = store.set(workflowId, toTraceparent(span.spanContext()));
      if (saved instanceof Promise) saved.catch(done);
    } catch (error) {
      done(error); // a failing store never fails a run, nor its tracing
    }
  }

  #runEnd(event: Extract<GraphEvent, { type: "RunEnd" }>): void {
    const run = this.#run(event.spanId, event.workflowId);
    if (run === undefined) return;
    this.#runs.delete(event.spanId);
    if (this.#roots.get(event.workflowId) === run) this.#roots.delete(event.workflowId);
    if (this.#standIns.get(event.workflowId) === run) this.#standIns.delete(event.workflowId);
    run.span.setAttribute("graph.status", event.status);
    if (event.status === "failed") {
      run.span.setAttribute("error.type", errorType(event.error));
      run.span.setStatus({ code: SpanStatusCode.ERROR, message: messageOf(event.error) });
    } else {
      run.span.setStatus({ code: SpanStatusCode.OK });
    }
    run.span.end(event.timestamp);
  }

  #nodeStart(event: Extract<GraphEvent, { type: "NodeStart" }>): void {
    const run = event.parentSpanId === undefined ? undefined : this.#run(event.parentSpanId, event.workflowId);
    if (run === undefined) return;
    const attributes: Attributes = {
      ...this.#attributes,
      "graph.node.name": event.nodeName,
      "graph.node.type": event.nodeType,
      "graph.superstep": run.superstep,
      "graph.cached": false,
      "graph.attempt": 1,
    };
    if (this.#maxPayload !== undefined) attributes["graph.node.inputs"] = payload(event.inputs, this.#maxPayload);
    const span = this.#tracer.startSpan(
      `node ${event.nodeName}`,
      { kind: SpanKind.INTERNAL, startTime: event.timestamp, attributes },
      run.ctx,
    );
    this.#nodes.set(event.spanId, {
      span,
      ctx: trace.setSpan(run.ctx, span),
      run,
      workflowId: event.workflowId,
      nodeName: event.nodeName,
      attempt: 1,
    });
  }

  #nodeEnd(event: Extract<GraphEvent, { type: "NodeEnd" }>): void {
    if (event.replayed) return;
    const node = this.#nodes.get(event.spanId);
    if (node === undefined) return;
    this.#nodes.delete(event.spanId);
    const { span } = node;
    span.setAttribute("graph.status", event.status);
    if (event.cached) span.setAttribute("graph.cached", true);
    if (event.truncated) span.setAttribute("graph.truncated", true);
    if (this.#maxPayload !== undefined)
      span.setAttribute("graph.node.outputs", payload(event.outputs, this.#maxPayload));
    span.setStatus({ code: SpanStatusCode.OK });
    span.end(event.timestamp);
  }

  #nodeError(event: Extract<GraphEvent, { type: "NodeError" }>): void {
    const node = this.#nodes.get(event.spanId);
    if (node === undefined) return; // already ended by the attempt's own error event
    const type = errorType(event.error);
    if (event.willRetry) {
      node.span.addEvent(
        "retry",
        { "graph.attempt": event.attempt, "error.type": type, "exception.message": messageOf(event.error) },
        event.timestamp,
      );
      node.attempt = event.attempt + 1;
      node.span.setAttribute("graph.attempt", node.attempt);
      return;
    }
    this.#nodes.delete(event.spanId);
    node.span.setAttributes({ "error.type": type, "graph.status": "failed" });
    if (event.error instanceof Error) node.span.recordException(event.error, event.timestamp);
    node.span.setStatus({ code: SpanStatusCode.ERROR, message: messageOf(event.error) });
    node.span.end(event.timestamp);
  }

  #paused(event: Extract<GraphEvent, { type: "Paused" }>): void {
    const node = this.#nodes.get(event.spanId);
    const attributes: Attributes = {
      "graph.node.name": event.nodeName,
      "graph.pause.reason": event.reason,
      "graph.response_key": event.responseKey,
    };
    if (this.#maxPayload !== undefined) attributes["graph.pause.value"] = payload(event.value, this.#maxPayload);
    // The run span gets the event; the paused node (interrupt or the GraphNode around it) ends here: it has no
    // NodeEnd, and it runs again as a new span when the workflow resumes.
    const run = node?.run ?? this.#runs.get(event.parentSpanId ?? "");
    run?.span.addEvent("paused", attributes, event.timestamp);
    if (node === undefined) return;
    this.#nodes.delete(event.spanId);
    node.span.setAttribute("graph.status", "paused");
    node.span.end(event.timestamp);
  }
}

/** `"review"`, `"END"`, `"a,b"` (multi-target routes) or `"none"`. */
function decisionText(decision: unknown): string {
  if (decision === null || decision === undefined) return "none";
  const one = (t: unknown) => (typeof t === "symbol" ? "END" : String(t));
  return Array.isArray(decision) ? decision.map(one).join(",") : one(decision);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
