// Terminal rendering, driven only by the runtime's events: node start/end, gate decisions, streamed tokens,
// map progress, pauses. ANSI escapes by hand (no dependency); colours and in-place redraws only on a terminal.
import fs from "node:fs";
import type { Graph } from "@graph/core";
import type { EventProcessor, GraphEvent } from "@graph/runtime";
import type { KbDocument, Note } from "./llm.js";
import type { Decision, Resolution, ReviewRequest } from "./workflow.js";

// ───────────────────────────────────────────── styling ─────────────────────────────────────────────

/** Colour helpers that become the identity when colour is off. */
export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  blue(text: string): string;
  magenta(text: string): string;
  cyan(text: string): string;
}

/** Colour on a terminal unless NO_COLOR is set; FORCE_COLOR forces it on. */
export function makeStyle(stream: NodeJS.WriteStream, override?: boolean): Style {
  const env = process.env;
  const enabled =
    override ??
    (env["FORCE_COLOR"] !== undefined && env["FORCE_COLOR"] !== "0"
      ? true
      : env["NO_COLOR"] === undefined && stream.isTTY === true);
  const wrap = (open: number, close: number) => (text: string) =>
    enabled ? `\x1b[${open}m${text}\x1b[${close}m` : text;
  return {
    enabled,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    blue: wrap(34, 39),
    magenta: wrap(35, 39),
    cyan: wrap(36, 39),
  };
}

const CLEAR_LINE = "\r\x1b[2K";
const UP = "\x1b[1A";

// ───────────────────────────────────────────── output summaries ─────────────────────────────────────────────

const NAME_WIDTH = 15;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** One line about what a node produced, in the workflow's own terms. */
function describeOutputs(nodeName: string, outputs: Readonly<Record<string, unknown>>): string {
  switch (nodeName) {
    case "classify":
      return `category=${String(outputs["category"])}, risk=${String(outputs["risk"])}`;
    case "lookup": {
      const docs = (outputs["documents"] ?? []) as KbDocument[];
      return `${plural(docs.length, "document")}: ${docs.map((d) => d.id).join(", ")}`;
    }
    case "research": {
      const notes = (outputs["notes"] ?? []) as Note[];
      const useful = notes.filter((n) => n.relevance > 0).length;
      return `${plural(notes.length, "note")}, ${useful} relevant`;
    }
    case "rank": {
      const findings = (outputs["findings"] ?? []) as Note[];
      return findings.length === 0
        ? "nothing relevant found"
        : findings.map((f) => `${f.documentId} (${f.relevance.toFixed(2)})`).join(", ");
    }
    case "draft":
      return `${String(outputs["reply"] ?? "").length} characters`;
    case "prepareReview": {
      const review = outputs["review"] as ReviewRequest | undefined;
      return review === undefined ? "" : `revision ${review.revision}, risk ${review.risk}`;
    }
    case "approval":
      return describeDecision(outputs["decision"] as Decision | undefined);
    case "recordFeedback": {
      const feedback = (outputs["feedback"] ?? []) as string[];
      return feedback.length === 0 ? "no change requests" : `${plural(feedback.length, "change request")} so far`;
    }
    case "finalize": {
      const r = outputs["resolution"] as Resolution | undefined;
      return r === undefined ? "" : `reply sent (approved by ${r.approvedBy ?? "nobody"})`;
    }
    case "escalate":
      return "handed to a senior agent";
    default:
      return Object.keys(outputs).join(", ");
  }
}

/** "approved by you" / "rejected by --reject: "shorter"". */
export function describeDecision(decision: Decision | undefined): string {
  if (decision === undefined) return "";
  return decision.approved ? `approved by ${decision.by}` : `rejected by ${decision.by}: "${decision.feedback ?? ""}"`;
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function bar(completed: number, total: number, width = 20): string {
  const filled = total === 0 ? width : Math.round((completed / total) * width);
  return "█".repeat(filled) + "░".repeat(width - filled);
}

// ───────────────────────────────────────────── the live view ─────────────────────────────────────────────

/** Options of {@link ProgressView}. */
export interface ProgressViewOptions {
  readonly out: NodeJS.WriteStream;
  readonly style: Style;
  /** Redraw lines in place (a terminal). Otherwise every update is a new line, which reads well in logs. */
  readonly live: boolean;
  /** The graph being run: tells gates, interrupts and streaming nodes apart. */
  readonly graph: Graph;
}

/**
 * Renders one workflow's events as they happen. Only the top-level run is drawn node by node; the mapped research
 * runs show up as one progress bar (from `MapProgress`).
 */
export class ProgressView implements EventProcessor {
  readonly #out: NodeJS.WriteStream;
  readonly #style: Style;
  readonly #live: boolean;
  readonly #graph: Graph;
  #root: string | undefined;
  /** What the last printed line is, so a terminal can overwrite it (a node's start line by its end line). */
  #lastLine: { kind: "start" | "progress"; node: string } | undefined;
  #restored: string[] = [];
  #streaming: { node: string; column: number; tokens: number; space: boolean } | undefined;

  constructor(options: ProgressViewOptions) {
    this.#out = options.out;
    this.#style = options.style;
    this.#live = options.live;
    this.#graph = options.graph;
  }

  /** Draw the events of this workflow (and its map progress) from now on. */
  follow(workflowId: string): void {
    this.#root = workflowId;
    this.#lastLine = undefined;
    this.#restored = [];
    this.#streaming = undefined;
  }

  onEvent(event: GraphEvent): void {
    if (event.workflowId !== this.#root) return; // child runs (the mapped research) are summed up by MapProgress
    if (event.type !== "NodeEnd" || !event.replayed) {
      if (event.type !== "RouteDecision" || !event.replayed) this.#flushRestored();
    }
    switch (event.type) {
      case "NodeStart":
        this.#nodeStart(event.nodeName);
        return;
      case "NodeEnd":
        this.#nodeEnd(event);
        return;
      case "StreamingChunk":
        this.#chunk(event.nodeName, String(event.chunk));
        return;
      case "RouteDecision": {
        const choice =
          event.decision === null
            ? "no decision"
            : [event.decision]
                .flat()
                .map((t) => (typeof t === "string" ? t : "END"))
                .join(", ");
        if (event.replayed) {
          this.#restored.push(`${event.gate}→${choice}`);
          return;
        }
        this.#line(`${this.#style.magenta("◆")} ${event.gate.padEnd(NAME_WIDTH)} → ${this.#style.bold(choice)}`);
        return;
      }
      case "MapProgress":
        this.#progress(event.nodeName, event.completed, event.total);
        return;
      case "Paused": {
        const review = event.value as ReviewRequest | undefined;
        const why = review?.risk === "high" ? "a high-risk reply needs a human's approval" : "waiting for an answer";
        this.#line(
          `${this.#style.yellow("⏸")} ${event.nodeName.padEnd(NAME_WIDTH)} ${this.#style.yellow(`paused: ${why}`)}`,
        );
        return;
      }
      case "NodeError":
        this.#line(
          `${this.#style.red("✖")} ${event.nodeName.padEnd(NAME_WIDTH)} ${this.#style.red(errorMessage(event.error))}${event.willRetry ? " (retrying)" : ""}`,
        );
        return;
      case "StopRequested":
        this.#line(this.#style.yellow("⏹ stop requested: running nodes are cut off; finished steps stay saved"));
        return;
      case "Warning":
        this.#line(this.#style.yellow(`⚠ ${event.message}`));
        return;
      default:
        return;
    }
  }

  #kind(name: string): string | undefined {
    return (this.#graph.nodes.get(name) as { nodeType?: string } | undefined)?.nodeType;
  }

  #isStreaming(name: string): boolean {
    return (this.#graph.nodes.get(name) as { isStreaming?: boolean } | undefined)?.isStreaming === true;
  }

  #nodeStart(name: string): void {
    const kind = this.#kind(name);
    if (kind === "route" || kind === "branch" || kind === "interrupt") return; // they report their decision instead
    const s = this.#style;
    if (this.#isStreaming(name)) {
      this.#line(`${s.cyan("▶")} ${name.padEnd(NAME_WIDTH)} ${s.dim("streaming tokens…")}`);
      this.#streaming = { node: name, column: 0, tokens: 0, space: false };
      return;
    }
    // In a log, a quick node's start line is noise; its end line says everything. A terminal overwrites it anyway.
    if (!this.#live && name !== "research") return;
    const detail =
      name === "research" ? s.dim("reading the knowledge base, one sub-graph run per document…") : s.dim("…");
    this.#line(`${s.cyan("▶")} ${name.padEnd(NAME_WIDTH)} ${detail}`, { kind: "start", node: name });
  }

  #nodeEnd(event: Extract<GraphEvent, { type: "NodeEnd" }>): void {
    const name = event.nodeName;
    const s = this.#style;
    if (event.replayed) {
      this.#restored.push(name);
      return;
    }
    const kind = this.#kind(name);
    if (kind === "route" || kind === "branch") return;
    if (this.#streaming?.node === name) {
      if (this.#streaming.column > 0) this.#out.write("\n");
      this.#lastLine = undefined;
      this.#streaming = undefined;
    }
    if (event.status === "stopped") {
      this.#line(
        `${s.yellow("⏹")} ${name.padEnd(NAME_WIDTH)} ${s.yellow("stopped before it finished; it runs again on resume")}`,
        undefined,
        this.#lastLine?.node === name,
      );
      return;
    }
    const summary = describeOutputs(name, event.outputs);
    const time = kind === "interrupt" ? "" : `  ${s.dim(formatMs(event.durationMs))}`;
    const truncated = event.truncated ? s.yellow(" (partial: stopped while streaming)") : "";
    const replace = this.#lastLine !== undefined && this.#lastLine.node === name;
    this.#line(`${s.green("✔")} ${name.padEnd(NAME_WIDTH)} ${summary}${truncated}${time}`, undefined, replace);
  }

  #chunk(name: string, chunk: string): void {
    const state = this.#streaming ?? (this.#streaming = { node: name, column: 0, tokens: 0, space: false });
    const width = Math.max(40, Math.min(100, (this.#out.columns || 100) - 6));
    const prefix = this.#style.dim("  │ ");
    state.tokens++;
    // Word-wrap the streamed text under a gutter; a newline at the start of a line is a blank (gutter-only) line.
    for (const piece of chunk.match(/\n|[^\s]+|[^\S\n]+/g) ?? []) {
      if (piece === "\n") {
        this.#out.write(state.column > 0 ? "\n" : `${this.#style.dim("  │")}\n`);
        state.column = 0;
        state.space = false;
      } else if (piece.trim() === "") {
        state.space = state.column > 0;
      } else {
        if (state.column > 0 && state.column + 1 + piece.length > width) {
          this.#out.write("\n");
          state.column = 0;
        }
        if (state.column === 0) this.#out.write(prefix);
        else if (state.space) {
          this.#out.write(" ");
          state.column++;
        }
        this.#out.write(piece);
        state.column += piece.length;
        state.space = false;
      }
    }
    this.#lastLine = undefined;
  }

  #progress(name: string, completed: number, total: number): void {
    const s = this.#style;
    const text = `${s.blue("◌")} ${name.padEnd(NAME_WIDTH)} ${s.blue(bar(completed, total))} ${completed}/${total} documents`;
    const replace = this.#live && this.#lastLine !== undefined && this.#lastLine.node === name;
    this.#line(text, { kind: "progress", node: name }, replace);
  }

  /** Prints one collected line for everything restored from the checkpoint instead of running again. */
  #flushRestored(): void {
    if (this.#restored.length === 0) return;
    const order = [...this.#graph.nodes.keys()];
    const position = (entry: string) => order.indexOf(entry.split("→")[0]!);
    const list = [...this.#restored].sort((a, b) => position(a) - position(b));
    this.#restored = [];
    const s = this.#style;
    this.#line(
      `${s.dim("↺")} ${"restored".padEnd(NAME_WIDTH)} ${s.dim(`from the checkpoint, not run again: ${list.join(", ")}`)}`,
    );
  }

  /** Ends the view: prints anything still collected. */
  flush(): void {
    this.#flushRestored();
  }

  #line(text: string, tag?: { kind: "start" | "progress"; node: string }, replace = false): void {
    if (this.#streaming !== undefined && this.#streaming.column > 0) {
      this.#out.write("\n");
      this.#streaming.column = 0;
    }
    if (replace && this.#live) this.#out.write(`${UP}${CLEAR_LINE}`);
    this.#out.write(`${text}\n`);
    this.#lastLine = tag;
  }
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message.split("\n")[0] ?? error.name;
  return String(error);
}

// ───────────────────────────────────────────── trace file ─────────────────────────────────────────────

/**
 * Appends one JSON line per event (except streamed tokens) to a file, synchronously, so the record survives a
 * SIGKILL right after the event. The end-to-end tests read it to prove finished nodes never run twice.
 */
export class TraceWriter implements EventProcessor {
  readonly #file: string;
  constructor(file: string) {
    this.#file = file;
  }
  onEvent(event: GraphEvent): void {
    if (event.type === "StreamingChunk" && event.index > 0) return;
    const line: Record<string, unknown> = { type: event.type, workflowId: event.workflowId, pid: process.pid };
    if ("nodeName" in event) line["nodeName"] = event.nodeName;
    if (event.type === "NodeEnd") line["replayed"] = event.replayed;
    if (event.type === "RouteDecision") {
      line["gate"] = event.gate;
      line["replayed"] = event.replayed;
    }
    if (event.type === "MapProgress") line["completed"] = event.completed;
    if (event.type === "RunEnd") line["status"] = event.status;
    fs.appendFileSync(this.#file, `${JSON.stringify(line)}\n`);
  }
}

// ───────────────────────────────────────────── boxes ─────────────────────────────────────────────

/** A framed block of text, wrapped to the terminal width. */
export function box(title: string, body: string, style: Style, columns = 100): string {
  const width = Math.max(40, Math.min(96, columns - 4));
  const lines: string[] = [];
  for (const paragraph of body.split("\n")) {
    if (paragraph.trim() === "") {
      lines.push("");
      continue;
    }
    let current = "";
    for (const word of paragraph.split(/\s+/)) {
      if (current.length > 0 && current.length + 1 + word.length > width) {
        lines.push(current);
        current = word;
      } else current = current.length === 0 ? word : `${current} ${word}`;
    }
    if (current.length > 0) lines.push(current);
  }
  const top = `${style.dim("┌─")} ${style.bold(title)} ${style.dim("─".repeat(Math.max(2, width - title.length - 1)))}`;
  const bottom = style.dim(`└${"─".repeat(width + 2)}`);
  return [top, ...lines.map((l) => (l === "" ? style.dim("│") : `${style.dim("│")} ${l}`)), bottom].join("\n");
}
