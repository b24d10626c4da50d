import { randomBytes, randomUUID } from "node:crypto";
import type { Checkpointer } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import type { GraphEvent, PauseInfo, Runner } from "@graph/runtime";
import { DevtoolsError } from "./DevtoolsError.js";
import { EventLog, type PageEvent } from "./EventLog.js";
import { type GraphView, graphView } from "./graphView.js";
import { errorMessage, preview, previewRecord } from "./preview.js";
import { type DevtoolsServer, startServer } from "./server.js";

/** What the person clicked or typed to answer an interrupt. */
export interface Answer {
  readonly action: "approve" | "reject" | "text";
  /** The free-text answer (for "text"), or an optional comment with approve/reject. */
  readonly text?: string;
}

/** Options of {@link Devtools}. */
export interface DevtoolsOptions {
  /** The graphs runs may use, matched by name (nested graphs come along). */
  readonly graphs: readonly Graph[];
  /** Where past workflows are read from (list, history, fork). Usually the runner's checkpointer. */
  readonly checkpointer?: Checkpointer;
  /** Port on 127.0.0.1. Default 0: a free port chosen by the system. */
  readonly port?: number;
  /** Events kept for pages that connect late or reconnect (`Last-Event-ID`). Default 5,000. */
  readonly bufferSize?: number;
  /** Characters of each input/output value shown in the page. Default 2,000. */
  readonly previewLength?: number;
  /**
   * Turns a click into the interrupt's answer. Default: approve → `true`, reject → `false`, text → the string.
   */
  readonly toAnswer?: (answer: Answer, pause: Pick<PauseInfo, "nodeName" | "value" | "responseKey">) => unknown;
}

interface RunInfo {
  readonly root: string;
  /** Node path prefix of this run: "" for the root, "research/" for a nested run. */
  readonly prefix: string;
  readonly nodeSpans: Set<string>;
}

const defaultAnswer = (answer: Answer): unknown =>
  answer.action === "approve" ? true : answer.action === "reject" ? false : (answer.text ?? "");

/**
 * A live view of a runner's runs in the browser. Pass it to the runner as an event processor, connect the runner
 * (so the page can answer interrupts and fork), and open `url`:
 *
 * @example
 * ```ts
 * const devtools = new Devtools({ graphs: [graph], checkpointer });
 * const runner = new Runner({ checkpointer, eventProcessors: [devtools] });
 * devtools.connect(runner);
 * console.log(`Live view: ${await devtools.listen()}`);
 * ```
 */
export class Devtools {
  readonly options: DevtoolsOptions;
  /** Per-launch secret: the page's writes (answers, forks) must carry it. */
  readonly token = randomBytes(24).toString("base64url");
  readonly log: EventLog;
  readonly #views = new Map<string, GraphView>();
  readonly #graphs = new Map<string, Graph>();
  readonly #runs = new Map<string, RunInfo>();
  readonly #nodePaths = new Map<string, { path: string; root: string }>();
  /** Root workflow → its graph's name and last pause (for answering from the page). */
  readonly #roots = new Map<string, { graph: string; pause: PageEvent | undefined }>();
  #runner: Runner | undefined;
  #server: DevtoolsServer | undefined;

  constructor(options: DevtoolsOptions) {
    this.options = options;
    this.log = new EventLog(options.bufferSize ?? 5000);
    for (const g of options.graphs) {
      const view = graphView(g);
      this.#views.set(view.name, view);
      this.#graphs.set(view.name, g);
    }
  }

  /** The runner that answers and forks run on (use the one this devtools is a processor of). */
  connect(runner: Runner): this {
    this.#runner = runner;
    return this;
  }

  /** Starts the server on 127.0.0.1; resolves with the page's URL (it carries the token). */
  async listen(): Promise<string> {
    if (this.#server === undefined) this.#server = await startServer(this, this.options.port ?? 0);
    return this.url;
  }

  get url(): string {
    if (this.#server === undefined) throw new DevtoolsError("Devtools is not listening yet: await devtools.listen().");
    return `http://127.0.0.1:${this.#server.port}/?token=${this.token}`;
  }

  get views(): readonly GraphView[] {
    return [...this.#views.values()];
  }

  async close(): Promise<void> {
    await this.#server?.close();
    this.#server = undefined;
  }

  /** Called by the runner's shutdown: stops the server. */
  async shutdown(): Promise<void> {
    await this.close();
  }

  onEvent(event: GraphEvent): void {
    const page = this.#toPage(event);
    if (page !== undefined) this.log.append(page);
  }

  // ─────────────────────────── actions from the page ───────────────────────────

  /** Answers the pending interrupt of a workflow and resumes it (in the background). */
  async answer(workflowId: string, answer: Answer): Promise<void> {
    const runner = this.#requireRunner("answer an interrupt");
    let pause: Pick<PauseInfo, "nodeName" | "value" | "responseKey"> | undefined;
    let graphName = this.#roots.get(workflowId)?.graph;
    const live = this.#roots.get(workflowId)?.pause;
    if (live !== undefined) {
      pause = { nodeName: String(live.nodeName), value: live.rawValue, responseKey: String(live.responseKey) };
    } else if (this.options.checkpointer !== undefined) {
      const record = await this.options.checkpointer.getWorkflow(workflowId);
      if (record?.status === "paused" && record.pause !== undefined) pause = record.pause;
      graphName ??= record?.graphName;
    }
    if (pause === undefined)
      throw new DevtoolsError(`Workflow '${workflowId}' is not paused at an interrupt: there is nothing to answer.`);
    const graph = this.#graph(graphName, workflowId);
    const value = (this.options.toAnswer ?? defaultAnswer)(answer, pause);
    const root = this.#roots.get(workflowId);
    if (root !== undefined) root.pause = undefined;
    this.#background(runner.run(graph, { workflowId, values: { [pause.responseKey]: value } }), workflowId);
  }

  /** Starts a new workflow from a stored one's checkpoint at `superstep`; resolves with the new workflow's id. */
  async fork(workflowId: string, superstep: number): Promise<string> {
    const runner = this.#requireRunner("fork a workflow");
    const checkpointer = this.#requireCheckpointer("fork a workflow");
    const record = await checkpointer.getWorkflow(workflowId);
    if (record === undefined) throw new DevtoolsError(`No stored workflow '${workflowId}'.`);
    const checkpoint = await checkpointer.getCheckpoint(workflowId, { superstep });
    if (checkpoint === undefined)
      throw new DevtoolsError(`Workflow '${workflowId}' has no checkpoint at superstep ${superstep}.`);
    const graph = this.#graph(record.graphName, workflowId);
    const id = `${workflowId}-fork-${randomUUID().slice(0, 6)}`;
    this.#background(runner.run(graph, { workflowId: id, checkpoint }), id);
    return id;
  }

  /** Stored top-level workflows, newest first. */
  async workflows(): Promise<unknown[]> {
    const checkpointer = this.options.checkpointer;
    if (checkpointer === undefined) return [];
    await checkpointer.setup();
    const page = await checkpointer.listWorkflows({ rootsOnly: true, limit: 100 });
    return [...page.workflows]
      .sort((a, b) => new Date(b.updatedAt).getTime() - new Date(a.updatedAt).getTime())
      .map((w) => ({
        id: w.id,
        status: w.status,
        graphName: w.graphName,
        stepCount: w.stepCount,
        updatedAt: new Date(w.updatedAt).toISOString(),
        pause: w.pause === undefined ? undefined : { nodeName: w.pause.nodeName, responseKey: w.pause.responseKey },
      }));
  }

  /** One stored workflow: its record, step history and final values (previewed). */
  async workflow(id: string): Promise<unknown> {
    const checkpointer = this.#requireCheckpointer("show stored workflows");
    const max = this.options.previewLength ?? 2000;
    const record = await checkpointer.getWorkflow(id);
    if (record === undefined) return undefined;
    const [steps, state] = await Promise.all([checkpointer.getSteps(id), checkpointer.getState(id)]);
    return {
      id: record.id,
      status: record.status,
      graphName: record.graphName,
      pause:
        record.pause === undefined
          ? undefined
          : {
              nodeName: record.pause.nodeName,
              responseKey: record.pause.responseKey,
              value: preview(record.pause.value, max),
            },
      error: record.error === undefined ? undefined : `${record.error.name}: ${record.error.message}`,
      values: previewRecord(state, max),
      steps: steps.map((s) => ({
        superstep: s.superstep,
        index: s.index,
        nodeName: s.nodeName,
        status: s.status,
        values: previewRecord(s.values, max),
        decision: s.decision,
        error: s.error === undefined ? undefined : `${s.error.name}: ${s.error.message}`,
        durationMs: new Date(s.completedAt).getTime() - new Date(s.startedAt).getTime(),
        startedAt: new Date(s.startedAt).toISOString(),
      })),
    };
  }

  // ─────────────────────────── events → page events ───────────────────────────

  #toPage(event: GraphEvent): Omit<PageEvent, "id"> | undefined {
    const max = this.options.previewLength ?? 2000;
    const base = { type: event.type, workflowId: event.workflowId, timestamp: event.timestamp };
    switch (event.type) {
      case "RunStart": {
        let info: RunInfo;
        if (event.parentSpanId === undefined) {
          info = { root: event.workflowId, prefix: "", nodeSpans: new Set() };
          this.#roots.set(event.workflowId, { graph: event.graphName ?? "graph", pause: undefined });
        } else {
          const parent = this.#nodePaths.get(event.parentSpanId);
          if (parent === undefined) return undefined;
          info = { root: parent.root, prefix: `${parent.path}/`, nodeSpans: new Set() };
        }
        this.#runs.set(event.spanId, info);
        const graph = event.graphName ?? "graph";
        return { ...base, root: info.root, depth: event.depth, graph, path: info.prefix.slice(0, -1) };
      }
      case "RunEnd": {
        const run = this.#runs.get(event.spanId);
        if (run === undefined) return undefined;
        this.#runs.delete(event.spanId);
        for (const s of run.nodeSpans) this.#nodePaths.delete(s);
        const error = event.error === undefined ? undefined : errorMessage(event.error);
        return {
          ...base,
          root: run.root,
          path: run.prefix.slice(0, -1),
          status: event.status,
          durationMs: event.durationMs,
          error,
        };
      }
      case "NodeStart": {
        const run = event.parentSpanId === undefined ? undefined : this.#runs.get(event.parentSpanId);
        if (run === undefined) return undefined;
        const path = `${run.prefix}${event.nodeName}`;
        this.#nodePaths.set(event.spanId, { path, root: run.root });
        run.nodeSpans.add(event.spanId);
        return { ...base, root: run.root, path, nodeType: event.nodeType, inputs: previewRecord(event.inputs, max) };
      }
      case "NodeEnd": {
        // Replayed steps are reported on the run's span, with no NodeStart.
        const at = event.replayed ? this.#runPath(event.spanId, event.nodeName) : this.#nodePaths.get(event.spanId);
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
          outputs: previewRecord(event.outputs, max),
        };
      }
      case "NodeError": {
        const at = this.#nodePaths.get(event.spanId);
        if (at === undefined) return undefined;
        return {
          ...base,
          root: at.root,
          path: at.path,
          error: errorMessage(event.error),
          attempt: event.attempt,
          willRetry: event.willRetry,
        };
      }
      case "Paused": {
        const at = this.#nodePaths.get(event.spanId);
        if (at === undefined) return undefined;
        const page = {
          ...base,
          root: at.root,
          path: at.path,
          nodeName: event.nodeName,
          responseKey: event.responseKey,
          value: preview(event.value, max),
        };
        const root = this.#roots.get(at.root);
        // Only the top-level run's pause is answerable: its responseKey is the outer name.
        if (root !== undefined && at.root === event.workflowId) root.pause = { ...page, id: 0, rawValue: event.value };
        return page;
      }
      case "MapProgress":
      case "CacheHit": {
        const at = this.#nodePaths.get(event.spanId);
        if (at === undefined) return undefined;
        const extra = event.type === "MapProgress" ? { completed: event.completed, total: event.total } : {};
        return { ...base, root: at.root, path: at.path, ...extra };
      }
      case "RouteDecision": {
        const at = this.#runPath(event.spanId, event.gate);
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
      default:
        // StreamingChunk (one per token: too many for the page), SuperstepStart, CheckpointSaved.
        return undefined;
    }
  }

  #runPath(runSpan: string, nodeName: string): { path: string; root: string } | undefined {
    const run = this.#runs.get(runSpan);
    return run === undefined ? undefined : { path: `${run.prefix}${nodeName}`, root: run.root };
  }

  #graph(name: string | undefined, workflowId: string): Graph {
    const graph = name === undefined ? undefined : this.#graphs.get(name);
    if (graph === undefined)
      throw new DevtoolsError(
        `Workflow '${workflowId}' runs graph '${name ?? "?"}', which this devtools does not know.\n  How to fix: pass it in new Devtools({ graphs: [...] }).`,
      );
    return graph;
  }

  #requireRunner(what: string): Runner {
    if (this.#runner === undefined)
      throw new DevtoolsError(
        `Devtools can't ${what}: no runner connected.\n  How to fix: call devtools.connect(runner).`,
      );
    return this.#runner;
  }

  #requireCheckpointer(what: string): Checkpointer {
    const cp = this.options.checkpointer;
    if (cp === undefined)
      throw new DevtoolsError(
        `Devtools can't ${what}: no checkpointer.\n  How to fix: new Devtools({ graphs, checkpointer }) with the runner's checkpointer.`,
      );
    return cp;
  }

  /** Runs started from the page report their failures to the page, not as unhandled rejections. */
  #background(run: Promise<unknown>, workflowId: string): void {
    run.catch((error: unknown) => {
      this.log.append({
        type: "Notice",
        root: workflowId,
        workflowId,
        timestamp: Date.now(),
        message: `Run of '${workflowId}' failed: ${errorMessage(error)}`,
      });
    });
  }
}
