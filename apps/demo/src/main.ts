// The demo's command line: runs support tickets through the workflow on SQLite (default) or PostgreSQL, shows live
// progress from the runtime's events, asks for approval (or answers it from flags), and resumes, lists and draws
// workflows. `npm run demo -- --help` for the options.
import { randomBytes } from "node:crypto";
import path from "node:path";
import * as readline from "node:readline/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { Checkpointer, WorkflowRecord } from "@graph/checkpoint";
import type { OutputsOf, PausesOf } from "@graph/core";
import {
  type EventProcessor,
  isVersionMismatchError,
  isWorkflowConflictError,
  Runner,
  type RunResult,
  type RunStatus,
} from "@graph/runtime";
import { modelDelay, setModelDelay } from "./llm.js";
import { openStore, type StoreSpec } from "./store.js";
import { box, describeDecision, makeStyle, ProgressView, TraceWriter } from "./ui.js";
import { queueUrl, startWorkers, type WorkerPool } from "./workers.js";
import { type Decision, MAX_REVISIONS, SAMPLE_TICKETS, supportGraph } from "./workflow.js";

/** The support workflow's results and pauses, typed by its graph. */
type SupportOutputs = OutputsOf<typeof supportGraph>;
type SupportPause = PausesOf<typeof supportGraph>;

const APP_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DEFAULT_DATA_DIR = path.join(APP_DIR, "data");
const DEFAULT_SCHEMA = "graph_demo";
/** Short leases: after a crash (SIGKILL) `--resume` waits at most this long for the dead process's lease. */
const LEASE_TTL_MS = 4000;
const DEFAULT_FEEDBACK = "Please add more detail.";

const HELP = `Support-ticket workflow demo for the @graph toolkit.

Usage: npm run demo -- [options]

  (no options)            run two sample tickets: one pauses for approval, one is auto-approved
  --ticket "<text>"       run this ticket instead
  --approve               answer the next approval with "approve"
  --reject                answer the next approval with "reject" (the draft is revised; repeatable:
                          --reject --reject --approve answers three approvals in that order)
  --feedback "<text>"     what the reviewer wants changed, for each --reject in order
                          (default: "${DEFAULT_FEEDBACK}")
  --yes                   never prompt: approve what is left (implied without a terminal or when CI is set)
  --detach                leave the workflow paused at the approval and exit (answer later with --resume)
  --resume <id>           continue a workflow after Ctrl-C, a crash, or a pause
  --list                  list stored workflows and their status
  --graph                 print the workflow as a Mermaid diagram
  --ui [--port <n>]       run a ticket with a live view in the browser and answer the approval there
  --db <file|postgres://…|redis://…> SQLite file (default apps/demo/data/demo.db), a PostgreSQL connection string
                          or a Redis URL
  --schema <name>         PostgreSQL schema / Redis key prefix (default ${DEFAULT_SCHEMA})
  --data <dir>            data directory holding demo.db (default apps/demo/data)
  --workers <n>           run the tickets on n worker processes through a Redis queue (REDIS_URL, or --db when
                          it is Redis, else redis://127.0.0.1:6379)
  --id <workflowId>       workflow id for a new --ticket run (default: a random ticket-xxxxxx)
  --delay-ms <n>          base delay of the stand-in model in ms (default 15, or 200 with DEMO_SLOW=1)
  --trace <file>          append every runtime event as a JSON line (used by the end-to-end tests)
  --no-color              plain output
  -h, --help              this help
`;

// ───────────────────────────────────────────── command line ─────────────────────────────────────────────

interface Cli {
  readonly ticket: string | undefined;
  readonly answers: Decision[];
  readonly yes: boolean;
  readonly detach: boolean;
  readonly resume: string | undefined;
  readonly list: boolean;
  readonly graph: boolean;
  readonly db: string | undefined;
  readonly schema: string | undefined;
  readonly data: string | undefined;
  readonly id: string | undefined;
  readonly workers: number | undefined;
  readonly delayMs: number;
  readonly trace: string | undefined;
  readonly color: boolean | undefined;
  readonly help: boolean;
}

class UsageError extends Error {}

function parseCli(argv: readonly string[]): Cli {
  const { values, tokens } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    tokens: true,
    options: {
      ticket: { type: "string" },
      approve: { type: "boolean", multiple: true },
      reject: { type: "boolean", multiple: true },
      feedback: { type: "string", multiple: true },
      yes: { type: "boolean", short: "y" },
      detach: { type: "boolean" },
      resume: { type: "string" },
      list: { type: "boolean" },
      graph: { type: "boolean" },
      db: { type: "string" },
      schema: { type: "string" },
      data: { type: "string" },
      id: { type: "string" },
      workers: { type: "string" },
      "delay-ms": { type: "string" },
      trace: { type: "string" },
      "no-color": { type: "boolean" },
      color: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  // Answers are used in command-line order: `--reject --approve` rejects the first draft, approves the revision.
  const feedback = [...(values.feedback ?? [])];
  const answers: Decision[] = [];
  for (const token of tokens ?? []) {
    if (token.kind !== "option") continue;
    if (token.name === "approve") answers.push({ approved: true, by: "--approve" });
    if (token.name === "reject")
      answers.push({ approved: false, by: "--reject", feedback: feedback.shift() ?? DEFAULT_FEEDBACK });
  }
  let delayMs = process.env["DEMO_SLOW"] === "1" ? 200 : 15;
  if (values["delay-ms"] !== undefined) {
    delayMs = Number(values["delay-ms"]);
    if (!Number.isFinite(delayMs) || delayMs < 0)
      throw new UsageError(`--delay-ms expects a number of milliseconds ≥ 0, got '${values["delay-ms"]}'.`);
  }
  const workers = values.workers === undefined ? undefined : Number(values.workers);
  if (workers !== undefined && !(Number.isInteger(workers) && workers >= 1 && workers <= 64))
    throw new UsageError(`--workers expects a number of worker processes from 1 to 64, got '${values.workers}'.`);
  if (values.ticket !== undefined && values.ticket.trim() === "")
    throw new UsageError("--ticket needs the text of the ticket.");
  if (values.ticket !== undefined && values.resume !== undefined)
    throw new UsageError("Use either --ticket (a new workflow) or --resume <id> (an existing one), not both.");
  if (values.id !== undefined && values.ticket === undefined)
    throw new UsageError(
      "--id names the workflow of a new --ticket run; use --resume <id> to continue an existing one.",
    );
  if (values.id !== undefined && !/^[A-Za-z0-9_-]{1,100}$/.test(values.id))
    throw new UsageError("--id may only contain letters, digits, '-' and '_' (at most 100).");
  if (values.db !== undefined && values.data !== undefined && !isPostgres(values.db) && !isRedis(values.db))
    throw new UsageError("--db <file> and --data <dir> both choose the SQLite file; pass one of them.");
  return {
    ticket: values.ticket?.trim(),
    answers,
    yes: values.yes === true,
    detach: values.detach === true,
    resume: values.resume,
    list: values.list === true,
    graph: values.graph === true,
    db: values.db,
    schema: values.schema,
    data: values.data,
    id: values.id,
    workers,
    delayMs,
    trace: values.trace,
    color: values["no-color"] === true ? false : values.color === true ? true : undefined,
    help: values.help === true,
  };
}

/**
 * Relative paths are taken from where the user typed the command: `npm run demo` runs this file inside apps/demo,
 * but npm and pnpm pass the original directory as INIT_CWD.
 */
function userPath(p: string): string {
  return path.resolve(process.env["INIT_CWD"] ?? process.cwd(), p);
}

const isPostgres = (db: string) => /^postgres(ql)?:\/\//i.test(db);
const isRedis = (db: string) => /^rediss?:\/\//i.test(db);

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return url;
  }
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`;
}

// ───────────────────────────────────────────── the app ─────────────────────────────────────────────

const out = process.stdout;

class Demo {
  readonly cli: Cli;
  readonly style: ReturnType<typeof makeStyle>;
  readonly checkpointer: Checkpointer;
  readonly storeLabel: string;
  readonly view: ProgressView;
  readonly runner: Runner;
  readonly interactive: boolean;
  readonly store: StoreSpec;
  readonly processors: readonly EventProcessor[];
  /** Set by `--workers`: runs go through the queue to these worker processes. */
  pool: WorkerPool | undefined;
  #abort: AbortController | undefined;

  constructor(cli: Cli, store: StoreSpec, checkpointer: Checkpointer, storeLabel: string) {
    this.cli = cli;
    this.store = store;
    this.style = makeStyle(out, cli.color);
    const ci =
      process.env["CI"] !== undefined &&
      process.env["CI"] !== "" &&
      process.env["CI"] !== "0" &&
      process.env["CI"] !== "false";
    this.interactive = process.stdin.isTTY === true && out.isTTY === true && !cli.yes && !ci;
    this.checkpointer = checkpointer;
    this.storeLabel = storeLabel;
    this.view = new ProgressView({ out, style: this.style, live: out.isTTY === true, graph: supportGraph });
    const processors: EventProcessor[] = [this.view];
    if (cli.trace !== undefined) processors.push(new TraceWriter(userPath(cli.trace)));
    this.processors = processors;
    this.runner = new Runner({
      checkpointer: this.checkpointer,
      eventProcessors: processors,
      leaseTtlMs: LEASE_TTL_MS,
    });
  }

  /** Opens the storage the options name (see store.ts). */
  static async open(cli: Cli): Promise<Demo> {
    const schema = cli.schema ?? DEFAULT_SCHEMA;
    if (cli.db !== undefined && isPostgres(cli.db)) {
      const spec: StoreSpec = { kind: "postgres", url: cli.db, schema };
      return new Demo(cli, spec, await openStore(spec), `PostgreSQL ${redact(cli.db)} (schema ${schema})`);
    }
    if (cli.db !== undefined && isRedis(cli.db)) {
      const spec: StoreSpec = { kind: "redis", url: cli.db, prefix: `${schema}:` };
      return new Demo(cli, spec, await openStore(spec), `Redis ${redact(cli.db)} (key prefix ${spec.prefix})`);
    }
    const file =
      cli.db !== undefined
        ? userPath(cli.db)
        : path.join(cli.data !== undefined ? userPath(cli.data) : DEFAULT_DATA_DIR, "demo.db");
    const shown = path.relative(userPath("."), file);
    const spec: StoreSpec = { kind: "sqlite", path: file };
    return new Demo(
      cli,
      spec,
      await openStore(spec),
      `SQLite ${shown.startsWith("..") || shown === "" ? file : shown}`,
    );
  }

  /** `--workers N`: starts the worker processes; every run goes through the queue from now on. */
  async startWorkers(count: number): Promise<void> {
    await this.checkpointer.setup();
    this.pool = await startWorkers(count, this.store, modelDelay());
    this.print(
      this.style.dim(
        `Running on ${count} worker process${count === 1 ? "" : "es"} (pids ${this.pool.pids.join(", ")}) through the ` +
          `queue at ${redact(queueUrl(this.store))}.`,
      ),
    );
  }

  print(text = ""): void {
    out.write(`${text}\n`);
  }

  /** The command that continues a workflow, with the same storage options. */
  resumeCommand(id: string): string {
    const args = ["npm", "run", "demo", "--", "--resume", id];
    if (this.cli.db !== undefined) args.push("--db", this.cli.db);
    if (this.cli.schema !== undefined) args.push("--schema", this.cli.schema);
    if (this.cli.data !== undefined) args.push("--data", this.cli.data);
    return args.map(quote).join(" ");
  }

  /** Ctrl-C: the first one stops the run after the running nodes are cut off (finished steps stay saved). */
  onInterrupt = (): void => {
    const abort = this.#abort;
    if (abort !== undefined && !abort.signal.aborted) {
      this.print(this.style.yellow("\n⏹ Ctrl-C (press it again to quit at once)"));
      abort.abort({ reason: "Ctrl-C" });
      return;
    }
    process.exit(130);
  };

  banner(): void {
    const s = this.style;
    this.print(`${s.bold("Support desk")} ${s.dim("· a @graph workflow ·")} ${this.storeLabel}`);
    this.print(s.dim(`Stand-in model: deterministic rules, ${modelDelay()} ms per token, no network.`));
  }

  // ─────────────────────────── commands ───────────────────────────

  async runSamples(): Promise<number> {
    this.banner();
    for (const [i, sample] of SAMPLE_TICKETS.entries()) {
      this.print();
      this.print(this.style.bold(`━━ Ticket ${i + 1} of ${SAMPLE_TICKETS.length} · ${sample.label}`));
      const status = await this.runTicket(sample.ticket, newWorkflowId());
      if (status === "stopped" || status === "failed") return exitCode(status);
    }
    this.print();
    this.print(this.style.dim(`See every stored workflow with: npm run demo -- --list${this.storageFlags()}`));
    return 0;
  }

  async runOne(ticket: string): Promise<number> {
    this.banner();
    const id = this.cli.id ?? newWorkflowId();
    if (this.cli.id !== undefined) {
      await this.checkpointer.setup();
      if ((await this.checkpointer.getWorkflow(id)) !== undefined) {
        throw new UsageError(
          `Workflow '${id}' already exists in ${this.storeLabel}. Continue it with: ${this.resumeCommand(id)}`,
        );
      }
    }
    this.print();
    return exitCode(await this.runTicket(ticket, id));
  }

  async runTicket(ticket: string, id: string): Promise<RunStatus> {
    const s = this.style;
    this.print(`${s.dim("ticket:")} “${ticket}”`);
    this.print(`${s.dim("workflow:")} ${s.bold(id)}  ${s.dim(`(after Ctrl-C or a crash: ${this.resumeCommand(id)})`)}`);
    this.print();
    return this.drive(id, { ticket });
  }

  /** Runs until the workflow completes, stops, fails, or stays paused; answers approvals on the way. */
  async drive(id: string, initial: Record<string, unknown>): Promise<RunStatus> {
    let values = initial;
    for (;;) {
      const result = await this.runOnce(id, values);
      if (result.status === "paused" && result.pause !== undefined) {
        const answer = await this.answer(id, result.pause);
        if (answer === undefined) {
          this.leftPaused(id);
          return "paused";
        }
        this.print();
        this.print(
          `${this.style.cyan("▶")} resuming ${this.style.bold(id)} with the answer: ${describeDecision(answer)}`,
        );
        values = { [result.pause.responseKey]: answer };
        continue;
      }
      this.outcome(id, result.status, result.values, result.error);
      return result.status;
    }
  }

  async runOnce(id: string, values: Record<string, unknown>): Promise<RunResult<SupportOutputs, SupportPause>> {
    this.view.follow(id);
    const abort = new AbortController();
    this.#abort = abort;
    try {
      if (this.pool === undefined) {
        // A process killed while running keeps its lease until it expires: the run waits for it (up to the TTL).
        await this.noteHeldLease(id);
        return await this.runner.run(supportGraph, {
          workflowId: id,
          values,
          signal: abort.signal,
          errorHandling: "continue",
          waitForLease: true,
        });
      }
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.runRemote(this.pool, id, values, abort.signal);
        } catch (error) {
          // The queue's RemoteRunner has no waitForLease option: wait for a dead holder's lease here, once or twice.
          if (!isWorkflowConflictError(error) || attempt > 2) throw error;
          if (!(await this.waitOutLease(id))) throw error;
        }
      }
    } finally {
      this.view.flush();
      this.#abort = undefined;
    }
  }

  /** One run on a worker process: its events (from the run's stream) drive the same progress view. */
  async runRemote(
    pool: WorkerPool,
    id: string,
    values: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<RunResult<SupportOutputs, SupportPause>> {
    const handle = pool.remote.start(supportGraph, { workflowId: id, values, errorHandling: "continue" } as never);
    const onAbort = () => void handle.stop(signal.reason);
    signal.addEventListener("abort", onAbort);
    try {
      for await (const event of handle.events) for (const p of this.processors) await p.onEvent(event);
      return (await handle.result) as RunResult<SupportOutputs, SupportPause>;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  /**
   * Says so when another process still holds the workflow's lease (it crashed, or still runs): the run's
   * `waitForLease` then waits for it. Returns how long it has left, in ms (0: no live lease).
   */
  async noteHeldLease(id: string): Promise<number> {
    const workflow = await this.checkpointer.getWorkflow(id);
    const expires = workflow?.lease?.expiresAt;
    const waitMs = expires === undefined ? 0 : new Date(expires).getTime() - Date.now();
    if (waitMs <= 0) return 0;
    this.print(
      this.style.yellow(
        `… '${id}' is still leased by the process that ran it (${workflow?.lease?.owner ?? "unknown"}). If that process ` +
          `crashed, its lease expires in ${(waitMs / 1000).toFixed(1)} s; waiting.`,
      ),
    );
    return waitMs;
  }

  /** For a run on the worker pool: waits out a dead holder's lease. False when there is none to wait for. */
  async waitOutLease(id: string): Promise<boolean> {
    if ((await this.checkpointer.getWorkflow(id))?.lease === undefined) return false;
    const waitMs = await this.noteHeldLease(id);
    if (waitMs > LEASE_TTL_MS * 2) return false;
    await new Promise((resolve) => setTimeout(resolve, waitMs + 100));
    return true;
  }

  /** The answer to an approval: from the command line, a prompt, or automatic; undefined leaves it paused. */
  async answer(
    id: string,
    pause: Pick<SupportPause, "nodeName" | "value" | "responseKey">,
  ): Promise<Decision | undefined> {
    const s = this.style;
    const review = pause.value;
    this.print();
    this.print(
      box(
        `Approval needed · ${id} · draft ${review.revision} of at most ${MAX_REVISIONS + 1} · risk ${review.risk}`,
        review.reply,
        s,
        out.columns || 100,
      ),
    );
    const queued = this.cli.answers.shift();
    if (queued !== undefined) {
      this.print(`${s.dim("answer from the command line:")} ${describeDecision(queued)}`);
      return queued;
    }
    if (this.cli.detach) return undefined;
    if (this.interactive) return this.prompt();
    const by = this.cli.yes
      ? "--yes"
      : process.stdin.isTTY && out.isTTY
        ? "auto-answer, CI"
        : "auto-answer, no terminal";
    this.print(
      s.dim(
        `No one to ask (${by === "--yes" ? "--yes" : by.endsWith("CI") ? "CI is set" : "no terminal attached"}): approving automatically. ` +
          "Pass --detach to leave it paused, or --reject to see a revision.",
      ),
    );
    return { approved: true, by };
  }

  async prompt(): Promise<Decision | undefined> {
    const rl = readline.createInterface({ input: process.stdin, output: out });
    // Read lines through the iterator: it buffers, so answers typed ahead (or piped in) are not lost.
    const lines = rl[Symbol.asyncIterator]();
    rl.on("SIGINT", () => rl.close()); // Ctrl-C at the prompt: leave the workflow paused
    const ask = async (question: string): Promise<string | undefined> => {
      out.write(question);
      const next = await lines.next();
      return next.done === true ? undefined : String(next.value).trim();
    };
    try {
      for (;;) {
        const reply = (
          await ask(`${this.style.bold("Send this reply?")} [Y]es / [n]o, revise it / [l]ater, leave it paused: `)
        )?.toLowerCase();
        if (reply === undefined || reply === "l" || reply === "later") return undefined;
        if (reply === "" || reply === "y" || reply === "yes") return { approved: true, by: "you" };
        if (reply === "n" || reply === "no") {
          const feedback = await ask('What should change? (e.g. "shorter", "apologise", "say when"): ');
          if (feedback === undefined) return undefined;
          return { approved: false, by: "you", feedback: feedback || DEFAULT_FEEDBACK };
        }
      }
    } finally {
      rl.close();
    }
  }

  leftPaused(id: string): void {
    this.print();
    this.print(
      `${this.style.yellow("⏸")} ${this.style.bold(id)} stays paused at the approval (saved in ${this.storeLabel}).`,
    );
    this.print(
      `  Answer later with: ${this.resumeCommand(id)} --approve   ${this.style.dim('(or --reject --feedback "…", or no flag to be asked)')}`,
    );
  }

  outcome(id: string, status: RunStatus, values: Readonly<Partial<SupportOutputs>>, error?: unknown): void {
    const s = this.style;
    this.print();
    if (status === "completed") {
      const resolution = values.resolution;
      if (resolution?.outcome === "escalated") {
        this.print(box("⇪ Escalated", resolution.reply, s, out.columns || 100));
      } else if (resolution !== undefined) {
        const revised =
          resolution.revisions === 0
            ? "first draft"
            : `after ${resolution.revisions} revision${resolution.revisions === 1 ? "" : "s"}`;
        this.print(
          box(
            `✔ Reply sent · approved by ${resolution.approvedBy ?? "nobody"} · ${revised}`,
            resolution.reply,
            s,
            out.columns || 100,
          ),
        );
      } else if (values["category"] === "spam") {
        this.print(`${s.green("✔")} Closed as spam: triage routed to END, so nothing was researched or drafted.`);
      } else {
        this.print(`${s.green("✔")} Completed.`);
      }
      this.print(s.dim(`workflow ${id} completed`));
      return;
    }
    if (status === "stopped") {
      this.print(`${s.yellow("⏹")} Stopped. Finished steps are saved; nothing that finished will run again.`);
      this.print(`  Continue with: ${this.resumeCommand(id)}`);
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    this.print(`${s.red("✖")} Failed: ${message}`);
    this.print(`  Retry the unfinished steps with: ${this.resumeCommand(id)}`);
  }

  async resume(id: string): Promise<number> {
    this.banner();
    await this.checkpointer.setup();
    const workflow = await this.checkpointer.getWorkflow(id);
    if (workflow === undefined) {
      throw new UsageError(
        `No workflow '${id}' in ${this.storeLabel}. See the stored ones with: npm run demo -- --list${this.storageFlags()}`,
      );
    }
    if (workflow.parentId !== undefined) {
      throw new UsageError(
        `'${id}' is a child run of '${workflow.parentId}' (a nested graph). Resume the parent: ${this.resumeCommand(rootOf(workflow))}`,
      );
    }
    const state = await this.checkpointer.getState(id);
    const s = this.style;
    this.print();
    this.print(s.bold(`━━ Resuming ${id} · ${describeStatus(workflow)}`));
    if (typeof state["ticket"] === "string") this.print(`${s.dim("ticket:")} “${state["ticket"]}”`);
    if (workflow.status !== "paused") this.print();
    switch (workflow.status) {
      case "completed":
        this.print(s.dim("Nothing left to do; this is how it ended:"));
        this.outcome(id, "completed", state);
        return 0;
      case "paused": {
        const pause = workflow.pause;
        if (pause === undefined) return exitCode(await this.drive(id, {}));
        // Read back from the checkpointer, which stores pauses untyped; this graph only pauses at its approval.
        const answer = await this.answer(id, pause as SupportPause);
        if (answer === undefined) {
          this.leftPaused(id);
          return 0;
        }
        this.print();
        this.print(`${s.cyan("▶")} resuming ${s.bold(id)} with the answer: ${describeDecision(answer)}`);
        return exitCode(await this.drive(id, { [pause.responseKey]: answer }));
      }
      default:
        // running (the process died holding it), stopped (Ctrl-C) or failed: continue where the steps end.
        return exitCode(await this.drive(id, {}));
    }
  }

  storageFlags(): string {
    const args: string[] = [];
    if (this.cli.db !== undefined) args.push("--db", this.cli.db);
    if (this.cli.schema !== undefined) args.push("--schema", this.cli.schema);
    if (this.cli.data !== undefined) args.push("--data", this.cli.data);
    return args.length === 0 ? "" : ` ${args.map(quote).join(" ")}`;
  }

  async list(): Promise<number> {
    await this.checkpointer.setup();
    const workflows: WorkflowRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.checkpointer.listWorkflows({
        rootsOnly: true,
        limit: 100,
        ...(cursor === undefined ? {} : { cursor }),
      });
      workflows.push(...page.workflows);
      cursor = page.nextCursor;
    } while (cursor !== undefined && workflows.length < 500);
    const s = this.style;
    if (workflows.length === 0) {
      this.print(`No workflows in ${this.storeLabel} yet. Run one with: npm run demo`);
      return 0;
    }
    workflows.sort((a, b) => new Date(b.updatedAt).getTime() - new Date(a.updatedAt).getTime());
    this.print(
      `${s.bold(`${workflows.length} workflow${workflows.length === 1 ? "" : "s"}`)} in ${this.storeLabel}, newest first:`,
    );
    this.print();
    const rows: string[][] = [["ID", "STATUS", "UPDATED", "STEPS", "TICKET"]];
    for (const w of workflows) {
      const state = await this.checkpointer.getState(w.id);
      const ticket = typeof state["ticket"] === "string" ? state["ticket"] : "";
      rows.push([
        w.id,
        describeStatus(w),
        formatDate(w.updatedAt),
        String(w.stepCount),
        ticket.length > 48 ? `${ticket.slice(0, 47)}…` : ticket,
      ]);
    }
    const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
    for (const [i, row] of rows.entries()) {
      const line = row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c]!))).join("  ");
      this.print(i === 0 ? s.dim(line) : line);
    }
    const open = workflows.find((w) => w.status !== "completed");
    if (open !== undefined) {
      this.print();
      this.print(s.dim(`Continue an unfinished one with: ${this.resumeCommand(open.id)}`));
    }
    return 0;
  }

  async close(): Promise<void> {
    await this.pool?.close();
    await this.runner.close();
    await this.checkpointer.close(); // idempotent; also covers commands that never started a run
  }
}

function newWorkflowId(): string {
  return `ticket-${randomBytes(3).toString("hex")}`;
}

function rootOf(workflow: WorkflowRecord): string {
  return workflow.id.split("/")[0]!;
}

function describeStatus(w: WorkflowRecord): string {
  if (w.status === "paused") return `paused at ${w.pause?.nodeName ?? "an interrupt"}`;
  if (w.status === "running" && w.lease !== undefined && new Date(w.lease.expiresAt).getTime() < Date.now())
    return "interrupted (crashed)";
  return w.status;
}

function formatDate(value: Date | string): string {
  const d = new Date(value);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

function exitCode(status: RunStatus): number {
  return status === "completed" || status === "paused" ? 0 : status === "stopped" ? 130 : 1;
}

// ───────────────────────────────────────────── entry ─────────────────────────────────────────────

async function main(argv: readonly string[]): Promise<number> {
  if (argv.includes("--ui")) return (await import("./liveView.js")).runLiveView(argv);
  let cli: Cli;
  try {
    cli = parseCli(argv);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\nRun with --help for the options.\n`);
    return 2;
  }
  if (cli.help) {
    out.write(HELP);
    return 0;
  }
  if (cli.graph) {
    out.write(`${supportGraph.toMermaid()}\n`);
    return 0;
  }
  setModelDelay(cli.delayMs);
  let demo: Demo;
  try {
    demo = await Demo.open(cli);
  } catch (error) {
    process.stderr.write(`✖ ${(error as Error).message}\n`);
    return 1;
  }
  process.on("SIGINT", demo.onInterrupt);
  try {
    if (cli.workers !== undefined && !cli.list) await demo.startWorkers(cli.workers);
    if (cli.list) return await demo.list();
    if (cli.resume !== undefined) return await demo.resume(cli.resume);
    if (cli.ticket !== undefined) return await demo.runOne(cli.ticket);
    return await demo.runSamples();
  } catch (error) {
    const style = demo.style;
    if (error instanceof UsageError) {
      process.stderr.write(`${style.red("✖")} ${error.message}\n`);
      return 2;
    }
    if (isVersionMismatchError(error)) {
      process.stderr.write(
        `${style.red("✖")} ${(error as Error).message}\n  The workflow was started by an older version of this demo's graph; start a new ticket instead.\n`,
      );
      return 1;
    }
    const e = error as { _tag?: string; message?: string };
    process.stderr.write(`${style.red("✖")} ${e._tag ? `${e._tag}: ` : ""}${e.message ?? String(error)}\n`);
    return 1;
  } finally {
    process.off("SIGINT", demo.onInterrupt);
    await demo.close().catch(() => undefined);
  }
}

// `npm run demo | head` closes the pipe early: stop quietly (a workflow cut off this way resumes like after a crash).
out.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});
process.exitCode = await main(process.argv.slice(2));
