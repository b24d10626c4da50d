#!/usr/bin/env node
/**
 * `graph-upgrade upgrade-check --graph <module> --store <url> [--export <name>] [--json]`: the verdict of every
 * unfinished workflow against the graph a deploy is about to ship. Exit code 0 when nothing is blocked, 1 when a
 * workflow is blocked, 2 for a usage error. Reads only.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { checkWorkflows } from "./checkWorkflows.js";
import { loadGraph } from "./internal/loadGraph.js";
import { openStore, UsageError } from "./internal/openStore.js";
import { formatReport } from "./internal/printReport.js";

const USAGE = `Usage: graph-upgrade upgrade-check --graph <module> --store <url> [options]

  --graph <module>   a JS/TS module exporting the new graph (default export, or 'graph')
  --export <name>    the export to use instead
  --store <url>      the checkpointer: a SQLite file, postgres://… (?schema=…), redis://…
  --schema <name>    PostgreSQL schema (same as ?schema=)
  --prefix <prefix>  Redis key prefix
  --json             print the report as JSON
Exit code: 0 nothing blocked, 1 some workflow is blocked, 2 usage error.
`;

async function main(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      graph: { type: "string" },
      export: { type: "string" },
      store: { type: "string" },
      schema: { type: "string" },
      prefix: { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals[0] !== "upgrade-check" || positionals.length > 1)
    throw new UsageError(
      `expected the command 'upgrade-check'${positionals.length > 0 ? `, got '${positionals.join(" ")}'` : ""}.`,
    );
  if (values.graph === undefined || values.store === undefined)
    throw new UsageError("upgrade-check needs --graph <module> and --store <url>.");
  const graph = await loadGraph(values.graph, values.export);
  const { checkpointer, label } = await openStore(values.store, { schema: values.schema, prefix: values.prefix });
  try {
    await checkpointer.setup();
    const report = await checkWorkflows(checkpointer, graph);
    process.stdout.write(
      values.json ? `${JSON.stringify({ store: label, ...report }, null, 2)}\n` : formatReport(report, label),
    );
    return report.summary.blocked > 0 ? 1 : 0;
  } finally {
    await checkpointer.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const usage = error instanceof UsageError || (error as { code?: string })?.code?.startsWith("ERR_PARSE_ARGS");
    process.stderr.write(`graph-upgrade: ${(error as Error)?.message ?? String(error)}\n${usage ? `\n${USAGE}` : ""}`);
    process.exitCode = 2;
  },
);
