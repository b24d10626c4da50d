// Every published package, packed as a release packs it and installed with plain npm into an empty folder, works:
// each one's smoke script imports it, builds a graph and runs it (SQLite on a real file, PostgreSQL and Redis on the
// servers of DATABASE_URL / REDIS_URL, a run through one BullMQ worker, the devtools page and its scripts over
// HTTP), and a strict `tsc` compiles a consumer file that imports every package.
import fs from "node:fs";
import path from "node:path";
import type { StartedServer } from "@graph/test-redis";
import { startRedisServer } from "@graph/test-redis";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { exec, type Published, publishedPackages, root } from "../src/pack.js";
import { installProject, type SmokeProject, tmp, userEnv } from "../src/project.js";

const packages = publishedPackages();
/** Compiled by their own consumer (consumer-ai.ts): the AI SDK's declarations need the DOM library and skipLibCheck. */
const aiPackages = new Set(["@graph/ai-sdk", "@graph/react"]);
const work = tmp();
const databaseUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres";
const schema = `graph_smoke_${Date.now().toString(36)}_${process.pid}`;
const prefix = `graph-smoke-${Date.now().toString(36)}-${process.pid}`;
let redisUrl = process.env["REDIS_URL"] ?? "";
let redisServer: StartedServer | undefined;
let project: SmokeProject | undefined;
let setupError: unknown;

beforeAll(async () => {
  try {
    if (redisUrl === "") {
      redisServer = await startRedisServer();
      redisUrl = redisServer.url;
    }
    const tarballs = new Map(Object.entries(inject("packed").tarballs));
    project = await installProject(packages, tarballs, work);
  } catch (error) {
    setupError = error;
  }
}, 600_000);

afterAll(async () => {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on("error", () => undefined);
  await client
    .connect()
    .then(() => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`))
    .catch(() => undefined);
  await client.end().catch(() => undefined);
  if (redisUrl !== "" && redisServer === undefined) {
    const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 5000 });
    try {
      await redis.connect();
      for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 500 }) as AsyncIterable<string[]>) {
        if (keys.length > 0) await redis.del(...keys);
      }
    } catch {
      // Nothing to clean when the server was never reached.
    } finally {
      redis.disconnect();
    }
  }
  await redisServer?.stop();
  fs.rmSync(work, { recursive: true, force: true });
}, 120_000);

function installed(): SmokeProject {
  if (setupError !== undefined) throw setupError;
  if (project === undefined) throw new Error("the smoke project was not installed");
  return project;
}

async function requirePostgres(): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `The @graph/checkpoint-postgres smoke script needs PostgreSQL at ${databaseUrl} (${String(error)}). Run it ` +
        "through `npm test` (which starts one), start one, or point DATABASE_URL at a server where the user may " +
        "CREATE SCHEMA.",
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Runs `node <script>` in the installed project as a user would, with the user's environment. */
async function runScript(script: string, env: Record<string, string> = {}): Promise<string> {
  const app = installed();
  const result = await exec(process.execPath, [script], {
    cwd: app.dir,
    env: userEnv({
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      SMOKE_SCHEMA: schema,
      SMOKE_PREFIX: prefix,
      ...env,
    }),
    timeoutMs: 90_000,
  });
  if (result.code !== 0) throw new Error(`node ${script} exited with ${result.code} in ${app.dir}:\n${result.output}`);
  return result.output;
}

describe("packages installed from their tarballs with plain npm", () => {
  it("installs every published package into an empty folder (better-sqlite3's install script approved)", () => {
    const app = installed();
    const modules = path.join(app.dir, "node_modules");
    for (const pkg of packages)
      expect(fs.existsSync(path.join(modules, pkg.name, "package.json")), pkg.name).toBe(true);
    // The native binding is there: the install script ran (npm did not skip it for want of approval).
    expect(fs.existsSync(path.join(modules, "better-sqlite3/build/Release/better_sqlite3.node"))).toBe(true);
    expect(app.installOutput).not.toMatch(/install scripts not yet covered by allowScripts/);
    // Nothing but @graph/devtools may bring Mermaid (tens of MB) into a user's install.
    const mermaidUsers = packages.filter((pkg) => "mermaid" in (pkg.manifest.dependencies ?? {}));
    expect(mermaidUsers.map((pkg) => pkg.name)).toEqual([]);
  });

  const scripts: Record<string, string> = Object.fromEntries(
    packages.filter((pkg) => pkg.folder !== "checkpoint-conformance").map((pkg) => [pkg.name, `${pkg.folder}.mjs`]),
  );
  it("has a smoke script for every published package", () => {
    const names = packages.map((pkg: Published) => pkg.name).filter((name) => name !== "@graph/checkpoint-conformance");
    for (const name of names) {
      expect(fs.existsSync(path.join(root, "tools/smoke/fixtures", scripts[name] ?? "")), name).toBe(true);
    }
  });

  for (const [name, script] of Object.entries(scripts)) {
    it.concurrent(`${name}: import it, build a graph, run it (${script})`, async () => {
      if (name === "@graph/checkpoint-postgres") await requirePostgres();
      const output = await runScript(script);
      if (name === "@graph/devtools") expect(output).toMatch(/page and \d+ assets served: .*\/app\.js/);
    }, 120_000);
  }

  it.concurrent("@graph/checkpoint-conformance: the suite runs in the user's own vitest", async () => {
    const app = installed();
    const result = await exec(
      process.execPath,
      [
        path.join(app.dir, "node_modules/vitest/vitest.mjs"),
        "run",
        "checkpoint-conformance.test.mjs",
        "--reporter=dot",
      ],
      { cwd: app.dir, env: userEnv({ CI: "true", NO_COLOR: "1" }), timeoutMs: 120_000 },
    );
    if (result.code !== 0) throw new Error(`vitest in ${app.dir} exited with ${result.code}:\n${result.output}`);
    expect(result.output).toMatch(/Tests\s+\d+ passed/);
  }, 150_000);

  it.concurrent("a strict tsc (skipLibCheck off) compiles a consumer that imports every package", async () => {
    const app = installed();
    const source = fs.readFileSync(path.join(app.dir, "consumer.ts"), "utf8");
    for (const pkg of packages.filter((p) => !aiPackages.has(p.name)))
      expect(source, `consumer.ts imports ${pkg.name}`).toContain(`from "${pkg.name}"`);
    const tsc = path.join(root, "node_modules/typescript/bin/tsc");
    const result = await exec(process.execPath, [tsc, "-p", "tsconfig.consumer.json"], {
      cwd: app.dir,
      env: userEnv(),
      // skipLibCheck off type-checks every declaration file the imports reach (effect, bullmq, vitest, …): slow.
      timeoutMs: 300_000,
    });
    if (result.code !== 0) throw new Error(`tsc -p tsconfig.consumer.json failed in ${app.dir}:\n${result.output}`);
  }, 330_000);

  it.concurrent("a strict tsc with the DOM library compiles a chat page's use of @graph/ai-sdk and @graph/react", async () => {
    const app = installed();
    const source = fs.readFileSync(path.join(app.dir, "consumer-ai.ts"), "utf8");
    for (const name of aiPackages) expect(source, `consumer-ai.ts imports ${name}`).toContain(`from "${name}"`);
    const tsc = path.join(root, "node_modules/typescript/bin/tsc");
    const result = await exec(process.execPath, [tsc, "-p", "tsconfig.consumer-ai.json"], {
      cwd: app.dir,
      env: userEnv(),
      timeoutMs: 300_000,
    });
    if (result.code !== 0) throw new Error(`tsc -p tsconfig.consumer-ai.json failed in ${app.dir}:\n${result.output}`);
  }, 330_000);
});
