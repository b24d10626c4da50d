import { closestName, GraphConfigError, isGraph } from "@graph/core";

/** The `drop` pause mapping (a registered symbol: the same in every copy of this package). */
const drop = Symbol.for("@graph/upgrade/drop");

// upgradable() is called from plain JavaScript and with options read from configuration: each wrong shape is a
// GraphConfigError naming the option, what it got and what to write, never a TypeError later inside an upgrade.

const WHERE = "upgradable(graph, options)";
const OPTIONS = ["label", "migrations"] as const;
const MIGRATION = ["from", "rename", "transform", "pause"] as const;

const describe = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "an array" : typeof v === "string" ? JSON.stringify(v) : typeof v;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function fail(option: string, message: string, fix: string): never {
  throw new GraphConfigError(`${WHERE}: ${message}\n  How to fix: ${fix}`, { where: option });
}

function refuseUnknown(record: Record<string, unknown>, known: readonly string[], prefix: string): void {
  for (const key of Object.keys(record)) {
    if (known.includes(key)) continue;
    const close = closestName(key, known);
    fail(
      `${prefix}${key}`,
      `unknown option '${prefix}${key}'${close === undefined ? "" : ` (did you mean '${prefix}${close}'?)`}.`,
      `use only ${known.map((k) => `'${k}'`).join(", ")}.`,
    );
  }
}

/** Checks `upgradable`'s arguments before anything is registered. */
export function checkUpgradable(graph: unknown, options: unknown): void {
  if (!isGraph(graph))
    fail(
      "graph",
      `the first argument must be a Graph, got ${describe(graph)}.`,
      'upgradable(new Graph([...]), { label: "v2" }).',
    );
  if (!isRecord(options))
    fail(
      "options",
      `options must be an object, got ${describe(options)}.`,
      `upgradable(graph, { label: "v2", migrations: [...] }).`,
    );
  refuseUnknown(options, OPTIONS, "");
  const { label, migrations } = options;
  if (label !== undefined && (typeof label !== "string" || label.length === 0))
    fail("label", `option 'label' must be a non-empty string, got ${describe(label)}.`, `label: "v2".`);
  if (migrations === undefined) return;
  if (!Array.isArray(migrations))
    fail(
      "migrations",
      `option 'migrations' must be an array of migrations, got ${describe(migrations)}.`,
      `migrations: [{ from: "v1", rename: { draft: "body" } }].`,
    );
  migrations.forEach((m: unknown, i: number) => checkMigration(m, `migrations[${i}]`));
}

function checkMigration(m: unknown, at: string): void {
  if (!isRecord(m)) fail(at, `${at} must be an object, got ${describe(m)}.`, `{ from: "v1", rename: { … } }.`);
  refuseUnknown(m, MIGRATION, `${at}.`);
  if (typeof m.from !== "string" || m.from.length === 0)
    fail(
      `${at}.from`,
      `${at}.from must name the stored version (a label or a definitionHash), got ${describe(m.from)}.`,
      `from: "v1".`,
    );
  const entries = (key: string, ok: (v: unknown) => boolean, what: string, example: string) => {
    const value = m[key];
    if (value === undefined) return;
    if (!isRecord(value)) fail(`${at}.${key}`, `${at}.${key} must be an object, got ${describe(value)}.`, example);
    for (const [name, v] of Object.entries(value))
      if (!ok(v)) fail(`${at}.${key}.${name}`, `${at}.${key}.${name} must be ${what}, got ${describe(v)}.`, example);
  };
  entries("rename", (v) => typeof v === "string", "the new value name", `rename: { draft: "body" }.`);
  entries(
    "transform",
    (v) => typeof v === "function",
    "a function of the stored value",
    "transform: { body: (old) => String(old) }.",
  );
  entries(
    "pause",
    (v) => typeof v === "string" || v === drop,
    "an interrupt's name or drop",
    `pause: { approve: "review" }.`,
  );
}
