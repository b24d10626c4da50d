// `npm run demo -- --ui`: runs a ticket with the live view of @graph/devtools. The approval is answered in the
// browser (Approve / Reject / a free-text revision request); the process serves the page until Ctrl-C.
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { Checkpointer } from "@graph/checkpoint";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
import { Devtools } from "@graph/devtools";
import { type EventProcessor, Runner } from "@graph/runtime";
import { setModelDelay } from "./llm.js";
import { type Decision, SAMPLE_TICKETS, supportGraph } from "./workflow.js";

const APP_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const userPath = (p: string) => path.resolve(process.env["INIT_CWD"] ?? process.cwd(), p);

async function openCheckpointer(db: string | undefined, data: string | undefined, schema: string | undefined) {
  if (db !== undefined && /^postgres(ql)?:\/\//i.test(db)) {
    const { PostgresCheckpointer } = await import("@graph/checkpoint-postgres");
    return new PostgresCheckpointer({
      connectionString: db,
      schema: schema ?? "graph_demo",
      policy: { durability: "sync" },
      max: 4,
    });
  }
  const file =
    db !== undefined
      ? userPath(db)
      : path.join(data !== undefined ? userPath(data) : path.join(APP_DIR, "data"), "demo.db");
  return new SqliteCheckpointer({ path: file, policy: { durability: "sync" } });
}

/** Prints how each top-level run of a workflow ended, so the terminal tells the same story as the page. */
function statusPrinter(): EventProcessor {
  return {
    onEvent(event) {
      if (event.type !== "RunEnd" || event.parentSpanId !== undefined) return;
      const hint = event.status === "paused" ? " (answer it in the live view)" : "";
      process.stdout.write(`workflow ${event.workflowId}: ${event.status}${hint}\n`);
    },
  };
}

/** Runs `--ui`; resolves with the exit code when the user presses Ctrl-C (or SIGTERM). */
export async function runLiveView(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      ui: { type: "boolean" },
      port: { type: "string" },
      ticket: { type: "string" },
      id: { type: "string" },
      db: { type: "string" },
      schema: { type: "string" },
      data: { type: "string" },
      "delay-ms": { type: "string" },
      "no-color": { type: "boolean" },
    },
  });
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`--port expects a port number (0-65535), got '${values.port}'.\n`);
    return 2;
  }
  setModelDelay(values["delay-ms"] === undefined ? 15 : Number(values["delay-ms"]));
  const checkpointer: Checkpointer = await openCheckpointer(values.db, values.data, values.schema);
  const devtools = new Devtools({
    graphs: [supportGraph],
    checkpointer,
    port,
    // The page's buttons become the demo's Decision: free text is a revision request.
    toAnswer: (answer): Decision =>
      answer.action === "approve"
        ? { approved: true, by: "live view" }
        : { approved: false, by: "live view", feedback: answer.text?.trim() || "Please add more detail." },
  });
  const runner = new Runner({ checkpointer, eventProcessors: [devtools, statusPrinter()], leaseTtlMs: 4000 });
  devtools.connect(runner);
  const url = await devtools.listen();
  process.stdout.write(`Live view: ${url}\n(open it in a browser on this machine; Ctrl-C to quit)\n`);

  const id = values.id ?? `ticket-${randomBytes(3).toString("hex")}`;
  const ticket = values.ticket ?? SAMPLE_TICKETS[0]!.ticket;
  runner.run(supportGraph, { workflowId: id, values: { ticket } }).catch((error: unknown) => {
    process.stderr.write(`✖ ${(error as Error).message}\n`);
  });

  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await runner.close();
  await devtools.close();
  await checkpointer.close();
  return 0;
}
