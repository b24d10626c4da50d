/**
 * Turns a run's events into AI SDK UI message chunks: node activity and produced values as data parts, streamed
 * text (strings a node yields or emits) as text parts, and UI chunks a node forwards from a model as they are.
 */

import type { GraphEvent, RunResult } from "@graph/runtime";
import { compile, type Matcher } from "@graph/select";
import type { UIMessageChunk } from "ai";
import { isUIChunk } from "../modelStream.js";
import type { GraphUIMessageChunk, RunData } from "../parts.js";

export interface TranslateOptions {
  readonly select?: string | readonly string[] | undefined;
  readonly errorMessage?: ((error: unknown) => string) | undefined;
}

interface Span {
  readonly name: string;
  readonly path: string;
  /** Ids of text/reasoning parts this execution opened and has not closed yet (the ids as sent). */
  readonly open: Map<string, "text" | "reasoning">;
  readonly startedAt: number;
  /** The text part plain string chunks go to, once opened. */
  plainText: string | undefined;
}

// Chunks a node's model stream carries that describe the model call, not the answer: the graph's stream has one
// start and one finish of its own.
const DROPPED = new Set(["start", "finish", "start-step", "finish-step", "message-metadata", "abort", "error"]);

/**
 * The default error text: the tag (and node), never a cause's message, which may hold server details. The names of
 * missing inputs are the graph's own, so they are said: the client usually sent the wrong values.
 */
function defaultErrorMessage(error: unknown): string {
  const e = error as { _tag?: unknown; name?: unknown; nodeName?: unknown; missing?: unknown } | null | undefined;
  const tag = typeof e?._tag === "string" ? e._tag : typeof e?.name === "string" ? e.name : "Error";
  if (tag === "MissingInputError" && Array.isArray(e?.missing))
    return `${tag}: the run needs ${e.missing.map((n) => `'${String(n)}'`).join(", ")}`;
  return typeof e?.nodeName === "string" ? `${tag} in node '${e.nodeName}'` : tag;
}

export class Translator {
  readonly #matcher: Matcher | undefined;
  readonly #errorMessage: (error: unknown) => string;
  readonly #spans = new Map<string, Span>();
  #root: string | undefined;
  #runId = "";
  #status: RunData["status"] | undefined;
  #error: unknown;
  #pause: { nodeName: string; responseKey: string; value: unknown; visit?: number } | undefined;

  constructor(options: TranslateOptions) {
    this.#matcher = options.select === undefined ? undefined : compile(options.select);
    this.#errorMessage = options.errorMessage ?? defaultErrorMessage;
  }

  get workflowId(): string | undefined {
    return this.#root;
  }

  /** The chunks one event becomes (often none). */
  push(event: GraphEvent): GraphUIMessageChunk[] {
    this.#root ??= event.workflowId;
    const atRoot = event.workflowId === this.#root;
    switch (event.type) {
      case "RunStart":
        if (atRoot) this.#runId = event.runId;
        return [];
      case "NodeStart": {
        const path = this.#path(event.workflowId, event.nodeName);
        this.#spans.set(event.spanId, {
          name: event.nodeName,
          path,
          open: new Map(),
          startedAt: event.timestamp,
          plainText: undefined,
        });
        return [
          { type: "data-node-start", id: event.spanId, data: { name: event.nodeName, path, nodeType: event.nodeType } },
        ];
      }
      case "StreamingChunk":
        return this.#chunk(event.spanId, event.chunk);
      case "NodeEnd": {
        if (event.replayed) return [];
        const span = this.#span(event.spanId, event.workflowId, event.nodeName);
        const out: GraphUIMessageChunk[] = this.#close(span);
        out.push({
          type: "data-node-end",
          id: event.spanId,
          data: { name: span.name, path: span.path, status: event.status, durationMs: event.durationMs },
        });
        const values = this.#values(event.workflowId, event.outputs);
        if (values !== undefined) out.push({ type: "data-state", data: { node: span.path, values } });
        this.#spans.delete(event.spanId);
        return out;
      }
      case "NodeError": {
        if (event.willRetry) return [];
        const span = this.#span(event.spanId, event.workflowId, event.nodeName);
        const out = this.#close(span);
        out.push({
          type: "data-node-end",
          id: event.spanId,
          data: {
            name: span.name,
            path: span.path,
            status: "failed",
            durationMs: Math.max(0, event.timestamp - span.startedAt),
            error: this.#errorMessage(event.error),
          },
        });
        this.#spans.delete(event.spanId);
        return out;
      }
      case "Paused": {
        if (atRoot && event.reason === "human_input")
          this.#pause = { nodeName: event.nodeName, responseKey: event.responseKey, value: event.value };
        // The interrupt (or the parked map) gets no NodeEnd: it ends here, waiting.
        const span = this.#spans.get(event.spanId);
        if (span === undefined) return [];
        this.#spans.delete(event.spanId);
        return [
          ...this.#close(span),
          {
            type: "data-node-end",
            id: event.spanId,
            data: {
              name: span.name,
              path: span.path,
              status: "paused",
              durationMs: Math.max(0, event.timestamp - span.startedAt),
            },
          },
        ];
      }
      case "RunEnd":
        if (atRoot) {
          this.#status = event.status;
          this.#error = event.error;
        }
        return [];
      default:
        return [];
    }
  }

  /** The closing chunks: the pause (if any), the run's status, and an `error` chunk when it failed. */
  finish(result: RunResult | undefined, failure: { error: unknown } | undefined): GraphUIMessageChunk[] {
    const out: GraphUIMessageChunk[] = [];
    for (const span of this.#spans.values()) out.push(...this.#close(span));
    this.#spans.clear();
    const workflowId = result?.workflowId ?? this.#root ?? "";
    const runId = result?.runId ?? this.#runId;
    const status = failure !== undefined ? "failed" : (result?.status ?? this.#status ?? "failed");
    const pause =
      result === undefined ? this.#pause : result.pause?.reason === "human_input" ? result.pause : undefined;
    if (status === "paused" && pause !== undefined)
      out.push({
        type: "data-node-suspense",
        id: runId,
        data: {
          nodeName: pause.nodeName,
          name: pause.nodeName,
          responseKey: pause.responseKey,
          value: pause.value,
          workflowId,
          ...(pause.visit === undefined ? {} : { visit: pause.visit }),
        },
      });
    const error = failure?.error ?? result?.error ?? this.#error;
    const run: RunData =
      status === "failed"
        ? { status, workflowId, runId, error: this.#errorMessage(error) }
        : { status, workflowId, runId };
    out.push({ type: "data-run", id: runId, data: run });
    if (status === "failed") out.push({ type: "error", errorText: run.error ?? "The run failed." });
    return out;
  }

  #path(workflowId: string, nodeName: string): string {
    const root = this.#root ?? workflowId;
    if (workflowId === root) return nodeName;
    const relative = workflowId.startsWith(`${root}/`) ? workflowId.slice(root.length + 1) : workflowId;
    return `${relative}/${nodeName}`;
  }

  #span(spanId: string, workflowId: string, nodeName: string): Span {
    let span = this.#spans.get(spanId);
    if (span === undefined) {
      span = {
        name: nodeName,
        path: this.#path(workflowId, nodeName),
        open: new Map(),
        startedAt: Date.now(),
        plainText: undefined,
      };
      this.#spans.set(spanId, span);
    }
    return span;
  }

  #chunk(spanId: string, chunk: unknown): GraphUIMessageChunk[] {
    const span = this.#spans.get(spanId);
    if (span === undefined) return [];
    if (typeof chunk === "string") {
      if (chunk.length === 0) return [];
      const out: GraphUIMessageChunk[] = [];
      if (span.plainText === undefined) {
        span.plainText = `${spanId}-text`;
        span.open.set(span.plainText, "text");
        out.push({ type: "text-start", id: span.plainText });
      }
      out.push({ type: "text-delta", id: span.plainText, delta: chunk });
      return out;
    }
    if (!isUIChunk(chunk) || DROPPED.has(chunk.chunk.type)) return [];
    return [this.#forward(spanId, span, chunk.chunk)];
  }

  /** A model's chunk with its part id made unique to this node execution; open parts are tracked to close them. */
  #forward(spanId: string, span: Span, chunk: UIMessageChunk): GraphUIMessageChunk {
    if (!("id" in chunk) || typeof chunk.id !== "string") return chunk as GraphUIMessageChunk;
    const id = `${spanId}-${chunk.id}`;
    if (chunk.type === "text-start") span.open.set(id, "text");
    else if (chunk.type === "reasoning-start") span.open.set(id, "reasoning");
    else if (chunk.type === "text-end" || chunk.type === "reasoning-end") span.open.delete(id);
    return { ...chunk, id } as GraphUIMessageChunk;
  }

  /** End chunks for the parts a node left open (it finished, failed or was stopped mid-answer). */
  #close(span: Span): GraphUIMessageChunk[] {
    const out: GraphUIMessageChunk[] = [];
    for (const [id, kind] of span.open) out.push({ type: kind === "text" ? "text-end" : "reasoning-end", id });
    span.open.clear();
    span.plainText = undefined;
    return out;
  }

  /** The produced values a `data-state` part carries, keyed by name at the top level and by path below it. */
  #values(workflowId: string, outputs: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
    const root = this.#root ?? workflowId;
    const prefix = workflowId === root ? "" : `${workflowId.slice(root.length + 1)}/`;
    if (this.#matcher === undefined && prefix !== "") return undefined;
    let values: Record<string, unknown> | undefined;
    for (const [name, value] of Object.entries(outputs)) {
      const path = prefix + name;
      if (this.#matcher !== undefined && !this.#matcher.matches(path)) continue;
      values ??= {};
      values[path] = value;
    }
    return values;
  }
}
