import path from "node:path";
import { PostgresCheckpointer } from "@graph/checkpoint-postgres";
import { RedisCheckpointer } from "@graph/checkpoint-redis";
import { SqliteCheckpointer } from "@graph/checkpoint-sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./support/cli.js";
import { cliScenario } from "./support/cliScenario.js";
import { DATABASE_URL, postgresSchemas, redisPrefixes, tempDir } from "./support/services.js";

const temp = tempDir();
const schemas = postgresSchemas();
const prefixes = redisPrefixes();
afterAll(async () => {
  temp.remove();
  await schemas.drop();
  await prefixes.clear();
});

describe("graph-upgrade upgrade-check, as a process", () => {
  it("against a real SQLite file", { timeout: 120_000 }, async () => {
    const file = path.join(temp.dir, "workflows.db");
    await cliScenario(file, /against sqlite:.*workflows\.db$/, () => new SqliteCheckpointer({ path: file }));
  });

  it("against a real PostgreSQL (schema in the URL)", { timeout: 120_000 }, async () => {
    const schema = schemas.schema("cli");
    const url = new URL(DATABASE_URL);
    url.searchParams.set("schema", schema);
    await cliScenario(
      url.toString(),
      new RegExp(`\\(schema ${schema}\\)$`),
      () => new PostgresCheckpointer({ connectionString: DATABASE_URL, schema }),
    );
  });

  it("against Redis (a key prefix of its own)", { timeout: 120_000 }, async () => {
    const { url, prefix } = prefixes.next();
    await cliScenario(url, new RegExp(`\\(prefix ${prefix}\\)$`), () => new RedisCheckpointer({ url, prefix }), prefix);
  });

  it("usage errors exit 2 with what to do", { timeout: 60_000 }, async () => {
    const missing = await runCli([
      "upgrade-check",
      "--graph",
      "test/fixtures/v2-renamed.ts",
      "--store",
      path.join(temp.dir, "typo.db"),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no SQLite file at");
    const noCommand = await runCli(["--graph", "x.ts"]);
    expect(noCommand.code).toBe(2);
    expect(noCommand.stderr).toContain("expected the command 'upgrade-check'");
  });
});
