import { randomBytes } from "node:crypto";
import type { Checkpointer } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import type { GraphEvent, PauseInfo, Runner } from "@graph/runtime";
import { DevtoolsError } from "./DevtoolsError.js";
import { EventLog } from "./EventLog.js";
import { type GraphView, graphView } from "./graphView.js";
import { PageEvents } from "./internal/pageEvents.js";
import { type AnswerSchema, isAnswerSchema } from "./internal/schema.js";
import { editableState, firstInputs, mapItems, shownStatus, summary, workflowDetail } from "./internal/stored.js";
import { checkAnswer, checkForkValues, checkRunValues } from "./internal/validation.js";
import { errorMessage } from "./preview.js";
import { type DevtoolsServer, startServer } from "./server.js";

export type { AnswerSchema } from "./internal/schema.js";

/**
 * An answer from the page: a typed value (`{ value }`, from the form built from the interrupt's schema or the
 * free-JSON editor), or a click on the Approve / Reject / text buttons that `toAnswer` turns into a value.
 */
export type Answer = (
  | { readonly value: unknown }
  | {
      readonly action: "approve" | "reject" | "text";
      /** The free-text answer (for "text"), or an optional comment with approve/reject. */
      readonly text?: string;
    }
) & {
  /**
   * The visit of the pause the answer is for (as the page was shown it): an answer for a pause that was settled
   * since (answered elsewhere, timed out) is refused and stores nothing. Default: the pause pending now.
   */
  readonly visit?: number;
};

/** The action button answers (what {@link DevtoolsOptions.toAnswer} receives). */
export type ButtonAnswer = Extract<Answer, { action: string }>;

/** Options of {@link Devtools}. */
export interface DevtoolsOptions {
  /** The graphs runs may use, matched by name (nested graphs come along). */
  readonly graphs: readonly Graph[];
  /** Where past workflows are read from (list, history, fork, rerun, resume). Usually the runner's checkpointer. */
  readonly checkpointer?: Checkpointer;
  /** Port on 127.0.0.1. Default 0: a free port chosen by the system. */
  readonly port?: number;
  /** Events kept for pages that connect late or reconnect (`Last-Event-ID`). Default 5,000. */
  readonly bufferSize?: number;
  /** Characters of each input/output value shown in the page. Default 2,000. */
  readonly previewLength?: number;
  /**
   * The schema of each interrupt's answer, by interrupt path (`"approval"`, `"review/approval"` in a nested
   * graph): any Standard Schema (a zod schema). The page builds the answer form from it (zod gives its JSON
   * Schema) and the server validates every answer with it before resuming: a refused answer is a 400 with the
   * reason, and nothing is stored. Interrupts without one get a free-JSON answer (or `toAnswer`'s buttons).
   */
  readonly answerSchemas?: Readonly<Record<string, AnswerSchema>>;
  /**
   * Gives interrupts without a schema Approve / Reject / text buttons and turns a click into the answer. Without
   * it those interrupts take free JSON.
   */
  readonly toAnswer?: (answer: ButtonAnswer, pause: Pick<PauseInfo, "nodeName" | "value" | "responseKey">) => unknown;
}

const defaultButtonAnswer = (answer: ButtonAnswer): unknown =>
  answer.action === "approve" ? true : answer.action === "reject" ? false : (answer.text ?? "");

const shortId = () => randomBytes(3).toString("hex");

/**
 * A live view of a runner's runs in the browser, and a remote control for them: start, stop, cancel, rerun,
 * resume and fork workflows, answer interrupts with typed values. Pass it to the runner as an event processor,
 * connect the runner (the page's actions run on it), and open `url`:
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
  /** Per-launch secret: every API call of the page carries it. */
  readonly token = randomBytes(24).toString("base64url");
  readonly log: EventLog;
  readonly #views = new Map<string, GraphView>();
  readonly #graphs = new Map<string, Graph>();
  readonly #events: PageEvents;
  /** Values of runs started from the page, for a rerun without a checkpointer. */
  readonly #given = new Map<string, { graph: string; values: Readonly<Record<string, unknown>> }>();
  #runner: Runner | undefined;
  #server: DevtoolsServer | undefined;

  constructor(options: DevtoolsOptions) {
    this.options = options;
    this.log = new EventLog(options.bufferSize ?? 5000);
    this.#events = new PageEvents(options.previewLength ?? 2000);
    for (const [path, schema] of Object.entries(options.answerSchemas ?? {}))
      if (!isAnswerSchema(schema))
        throw new DevtoolsError(
          `answerSchemas['${path}'] is not a schema.\n  How to fix: give a zod schema (or any Standard Schema: an object with '~standard.validate').`,
        );
    const viewOptions = { ...(options.answerSchemas ? { answerSchemas: options.answerSchemas } : {}) };
    for (const g of options.graphs) {
      const view = graphView(g, { ...viewOptions, buttons: options.toAnswer !== undefined });
      this.#views.set(view.name, view);
      this.#graphs.set(view.name, g);
    }
  }

  /** The runner the page's actions run on (use the one this devtools is a processor of). */
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
    const page = this.#events.translate(event);
    if (page !== undefined) this.log.append(page);
  }

  // ─────────────────────────── actions from the page ───────────────────────────

  /**
   * Answers the pending interrupt of a workflow and resumes it (in the background). The answer is validated with
   * the interrupt's schema first: a refused one throws a {@link DevtoolsError} with the issues and stores nothing.
   */
  async answer(workflowId: string, answer: Answer): Promise<void> {
    const runner = this.#requireRunner("answer an interrupt");
    const root = this.#events.roots.get(workflowId);
    let pause = root?.pause;
    let graphName = root?.graph;
    // With the store the stored pause is the one pending (a live one may be from before another process answered).
    let visit: number | undefined;
    if (this.options.checkpointer !== undefined) {
      const record = await this.options.checkpointer.getWorkflow(workflowId);
      pause = record?.status === "paused" ? record.pause : undefined;
      visit = pause === undefined ? undefined : record!.lastSuperstep;
      graphName ??= record?.graphName;
    }
    if (pause === undefined)
      throw new DevtoolsError(`Workflow '${workflowId}' is not paused at an interrupt: there is nothing to answer.`);
    if (answer.visit !== undefined && visit !== undefined && answer.visit !== visit)
      throw new DevtoolsError(
        `Workflow '${workflowId}' is no longer paused at the pause this answer is for (visit ${answer.visit}): it now waits at '${pause.nodeName}' (visit ${visit}). Nothing was stored; reload the workflow and answer its current pause.`,
        { kind: "conflict" },
      );
    const graph = this.#graph(graphName, workflowId);
    const given = "value" in answer ? answer.value : (this.options.toAnswer ?? defaultButtonAnswer)(answer, pause);
    const schema = this.options.answerSchemas?.[pause.nodeName] ?? interruptSchemaAt(graph, pause.nodeName);
    const value = await checkAnswer(schema, given, pause.nodeName);
    if (root !== undefined) root.pause = undefined;
    // Named by its visit: the runner takes the answer only while that pause is still pending (compared in the claim).
    const named = visit ?? answer.visit;
    const answering = named === undefined ? {} : { answering: { nodeName: pause.nodeName, visit: named } };
    this.#background(
      runner.run(graph, { workflowId, values: { [pause.responseKey]: value }, ...answering }),
      workflowId,
    );
  }

  /**
   * Starts a new workflow of a registered graph with `values` (checked against the graph's inputs and their zod
   * schemas first); resolves with its id (`<graph>-<random>` unless given).
   */
  async start(graphName: string, values: Readonly<Record<string, unknown>>, workflowId?: string): Promise<string> {
    const runner = this.#requireRunner("start a run");
    const graph = this.#graph(graphName, workflowId ?? "(new)");
    await checkRunValues(graph, values);
    const id = workflowId ?? `${graphName}-${shortId()}`;
    const existing = await this.options.checkpointer?.getWorkflow(id);
    if (existing !== undefined || this.#events.roots.has(id))
      throw new DevtoolsError(
        `Workflow '${id}' already exists.\n  How to fix: choose another id, or resume / rerun that workflow.`,
        { kind: "conflict" },
      );
    this.#given.set(id, { graph: graphName, values });
    this.#background(runner.run(graph, { workflowId: id, values, errorHandling: "continue" }), id);
    return id;
  }

  /**
   * Stops a workflow (`runner.stop`): a running one stops at once (or at its next stop poll in another process);
   * a paused or dead one ends `stopped` without running anything (cancel). Resolves with its status now.
   */
  async stop(workflowId: string): Promise<void> {
    const runner = this.#requireRunner("stop a workflow");
    const stopped = await runner.stop(workflowId, { by: "devtools" });
    if (!stopped) {
      const record = await this.options.checkpointer?.getWorkflow(workflowId);
      throw new DevtoolsError(
        record === undefined && !this.#events.roots.has(workflowId)
          ? `No workflow '${workflowId}' to stop.`
          : `Workflow '${workflowId}' has nothing to stop: it already ended${record ? ` (${record.status})` : ""}.`,
        { kind: record === undefined && !this.#events.roots.has(workflowId) ? "not-found" : "conflict" },
      );
    }
  }

  /** Runs a workflow again from the start, as a new workflow with the values its first run was given. */
  async rerun(workflowId: string): Promise<string> {
    let given = this.#given.get(workflowId);
    if (given === undefined) {
      const checkpointer = this.#requireCheckpointer("rerun a workflow it did not start");
      const record = await checkpointer.getWorkflow(workflowId);
      if (record === undefined) throw new DevtoolsError(`No stored workflow '${workflowId}'.`, { kind: "not-found" });
      given = { graph: record.graphName, values: (await firstInputs(checkpointer, workflowId)) ?? {} };
    }
    return this.start(given.graph, given.values, `${workflowId}-rerun-${shortId()}`);
  }

  /**
   * Continues a failed, stopped or dead workflow where it ended (finished steps are replayed, not run again).
   * A workflow paused at an interrupt is resumed by answering it instead.
   */
  async resume(workflowId: string): Promise<void> {
    const runner = this.#requireRunner("resume a workflow");
    const checkpointer = this.#requireCheckpointer("resume a workflow");
    const record = await checkpointer.getWorkflow(workflowId);
    if (record === undefined) throw new DevtoolsError(`No stored workflow '${workflowId}'.`, { kind: "not-found" });
    const status = shownStatus(record, this.#events.roots.get(workflowId)?.running === true);
    if (status === "running" || status === "completed" || (status === "paused" && record.pause !== undefined))
      throw new DevtoolsError(
        `Workflow '${workflowId}' is ${status}: ${
          status === "paused"
            ? "answer its interrupt to resume it"
            : status === "completed"
              ? "rerun it instead"
              : "stop it first"
        }.`,
        { kind: "conflict" },
      );
    const graph = this.#graph(record.graphName, workflowId);
    this.#background(runner.run(graph, { workflowId, errorHandling: "continue" }), workflowId);
  }

  /**
   * Starts a new workflow from a stored one's checkpoint at `superstep`, with `values` replacing values of that
   * state (edit and fork: the nodes that read them run again); resolves with the new workflow's id.
   */
  async fork(workflowId: string, superstep: number, values: Readonly<Record<string, unknown>> = {}): Promise<string> {
    const runner = this.#requireRunner("fork a workflow");
    const checkpointer = this.#requireCheckpointer("fork a workflow");
    const record = await checkpointer.getWorkflow(workflowId);
    if (record === undefined) throw new DevtoolsError(`No stored workflow '${workflowId}'.`, { kind: "not-found" });
    const checkpoint = await checkpointer.getCheckpoint(workflowId, { superstep });
    if (checkpoint === undefined)
      throw new DevtoolsError(`Workflow '${workflowId}' has no checkpoint at superstep ${superstep}.`, {
        kind: "not-found",
      });
    const graph = this.#graph(record.graphName, workflowId);
    checkForkValues(graph, checkpoint.values, values, `'${workflowId}' at superstep ${superstep}`);
    const id = `${workflowId}-fork-${shortId()}`;
    this.#background(runner.run(graph, { workflowId: id, checkpoint, values, errorHandling: "continue" }), id);
    return id;
  }

  /** Stored top-level workflows, newest first; a `running` one nobody holds any more is shown `dead`. */
  async workflows(): Promise<unknown[]> {
    const checkpointer = this.options.checkpointer;
    if (checkpointer === undefined) return [];
    await checkpointer.setup();
    const page = await checkpointer.listWorkflows({ rootsOnly: true, limit: 100 });
    const now = Date.now();
    return [...page.workflows]
      .sort((a, b) => new Date(b.updatedAt).getTime() - new Date(a.updatedAt).getTime())
      .map((w) => ({
        ...summary(w, shownStatus(w, this.#events.roots.get(w.id)?.running === true, now)),
        ...this.#dropped(w.id),
      }));
  }

  /**
   * Events of a workflow's runs that never reached this devtools: the runtime dropped them from a run handle's
   * bounded buffer (`EventsDropped`) before they were read into it. The live view of such a run is incomplete; the
   * stored workflow has its full history.
   */
  droppedEvents(workflowId: string): number {
    return this.#events.roots.get(workflowId)?.dropped ?? 0;
  }

  #dropped(workflowId: string): { droppedEvents?: number } {
    const n = this.droppedEvents(workflowId);
    return n > 0 ? { droppedEvents: n } : {};
  }

  /** One stored workflow (a nested one too): its record, step history with value diffs, and final values. */
  async workflow(id: string): Promise<unknown> {
    const checkpointer = this.#requireCheckpointer("show stored workflows");
    const record = await checkpointer.getWorkflow(id);
    if (record === undefined) return undefined;
    const status = shownStatus(record, this.#events.roots.get(id)?.running === true);
    const detail = await workflowDetail(checkpointer, record, status, this.options.previewLength ?? 2000);
    return { ...detail, ...this.#dropped(id) };
  }

  /** The items of a stored mapped GraphNode (`<workflow>/<node>`), with counts by status. */
  async mapItems(mapId: string): Promise<unknown> {
    return mapItems(this.#requireCheckpointer("show map items"), mapId);
  }

  /** The state of a stored workflow after `superstep`, each value as editable JSON where possible. */
  async state(workflowId: string, superstep: number): Promise<unknown> {
    const checkpointer = this.#requireCheckpointer("show a workflow's state");
    const checkpoint = await checkpointer.getCheckpoint(workflowId, { superstep });
    if (checkpoint === undefined)
      throw new DevtoolsError(`Workflow '${workflowId}' has no checkpoint at superstep ${superstep}.`, {
        kind: "not-found",
      });
    return {
      workflowId,
      superstep: checkpoint.superstep,
      values: editableState(checkpoint.values, this.options.previewLength ?? 2000),
    };
  }

  // ─────────────────────────── helpers ───────────────────────────

  #graph(name: string | undefined, workflowId: string): Graph {
    const graph = name === undefined ? undefined : this.#graphs.get(name);
    if (graph === undefined)
      throw new DevtoolsError(
        `Workflow '${workflowId}' runs graph '${name ?? "?"}', which this devtools does not know.\n  How to fix: pass it in new Devtools({ graphs: [...] }).`,
        { kind: "not-found" },
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

/** The `schema` of the interrupt at `path` (`"review/approval"` inside a nested graph), if it declares one. */
function interruptSchemaAt(graph: Graph, path: string): AnswerSchema | undefined {
  const [head, ...rest] = path.split("/");
  const node = head === undefined ? undefined : graph.nodes.get(head);
  if (node?.kind === "graph" && rest.length > 0) return interruptSchemaAt(node.graph, rest.join("/"));
  return node?.kind === "interrupt" && rest.length === 0 ? node.answerSchema : undefined;
}
