// Makes sure the PostgreSQL server the integration tests need is reachable.
// Order: DATABASE_URL if set → the local default 127.0.0.1:5432 → start the machine's cluster →
// start a throwaway server from the PostgreSQL binaries. Never skips silently: if nothing works it says how to fix.
// A throwaway server is owned by the caller: `ensurePostgres` returns a `stop()` that stops it and deletes its data
// directory, so no server or data directory outlives the test run.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export function reachable(host, port, timeoutMs = 1500) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

function target(url) {
  const u = new URL(url);
  return { host: u.hostname || "127.0.0.1", port: Number(u.port || 5432) };
}

const sh = (cmd, args) => spawnSync(cmd, args, { stdio: "pipe", encoding: "utf8" });

/** The first port from `from` on which nothing answers on 127.0.0.1. */
async function freePort(from) {
  for (let port = from; port < from + 50; port++) if (!(await reachable("127.0.0.1", port, 300))) return port;
  throw new Error(`no free port in ${from}–${from + 49} for a throwaway PostgreSQL`);
}

function postgresBinDir() {
  if (process.env.GRAPH_PG_BIN) return process.env.GRAPH_PG_BIN;
  if (!fs.existsSync("/usr/lib/postgresql")) return undefined;
  return fs
    .readdirSync("/usr/lib/postgresql")
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => `/usr/lib/postgresql/${v}/bin`)
    .find((d) => fs.existsSync(`${d}/initdb`));
}

/**
 * Starts a PostgreSQL server in a new temporary directory on the first free port from `fromPort`.
 * Returns its URL and a synchronous `stop()` (safe to call twice, usable from an exit handler).
 */
export async function startThrowawayPostgres(binDir, fromPort = 5433) {
  const port = await freePort(fromPort);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-pg-"));
  // initdb refuses to run as root: run the server as the `postgres` user then.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) sh("chown", ["postgres", dir]);
  const exec = (bin, args) =>
    asRoot ? sh("runuser", ["-u", "postgres", "--", `${binDir}/${bin}`, ...args]) : sh(`${binDir}/${bin}`, args);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    exec("pg_ctl", ["-D", `${dir}/data`, "-m", "fast", "-w", "stop"]);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const init = exec("initdb", ["-D", `${dir}/data`, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale"]);
  const start =
    init.status !== 0
      ? undefined
      : exec("pg_ctl", [
          "-D",
          `${dir}/data`,
          "-l",
          `${dir}/log`,
          "-w",
          "-o",
          `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
          "start",
        ]);
  if (start?.status !== 0) {
    const why = (init.status !== 0 ? init.stderr : start?.stderr) ?? "";
    stop();
    throw new Error(`could not start a throwaway PostgreSQL from ${binDir}: ${why.trim()}`);
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, dir, port, stop };
}

/**
 * The URL the tests use: sessions that commit without waiting for the WAL flush (`synchronous_commit=off`). Every
 * test kills our processes or their connections, never the server, and a commit is visible to every session at
 * once either way; only the fsync wait goes (~3.5 ms a commit on this kind of machine, ~0.3 ms without), which
 * makes the PostgreSQL suites several times faster. A URL that already sets `options` is kept as it is.
 */
export function testDatabaseUrl(url) {
  const parsed = new URL(url);
  if (parsed.searchParams.has("options")) return url;
  parsed.searchParams.set("options", "-c synchronous_commit=off");
  return parsed.toString();
}

/**
 * Returns `{ url, stop }`: a DATABASE_URL that answers, and a function that stops what this call started (a no-op
 * when the server was already running). Throws with instructions when no server can be found or started.
 */
export async function ensurePostgres({ defaultUrl = "postgres://postgres@127.0.0.1:5432/postgres" } = {}) {
  const noop = () => {};
  const url = process.env.DATABASE_URL ?? defaultUrl;
  const { host, port } = target(url);
  if (await reachable(host, port)) return { url, stop: noop };
  if (process.env.DATABASE_URL) {
    throw new Error(
      `DATABASE_URL points at ${host}:${port}, which does not answer. Start that server or unset DATABASE_URL to use a local one.`,
    );
  }
  console.log(`› PostgreSQL is not running on ${host}:${port}; trying to start it`);
  if (port === 5432 && fs.existsSync("/etc/postgresql")) {
    for (const version of fs.readdirSync("/etc/postgresql")) {
      sh("pg_ctlcluster", ["--skip-systemctl-redirect", version, "main", "start"]);
    }
    for (let i = 0; i < 20 && !(await reachable(host, port)); i++) await new Promise((r) => setTimeout(r, 250));
    // The machine's own cluster is left running: it is the machine's service, not this run's.
    if (await reachable(host, port)) return { url, stop: noop };
  }
  const binDir = postgresBinDir();
  if (binDir) {
    const server = await startThrowawayPostgres(binDir);
    console.log(`› started a throwaway PostgreSQL on port ${server.port} (stopped and removed when the run ends)`);
    return server;
  }
  throw new Error(
    "PostgreSQL is needed by the @graph/checkpoint-postgres tests and none is reachable on 127.0.0.1:5432.\n" +
      "Fix: start one (e.g. `pg_ctlcluster 15 main start`, or `docker run -p 5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust postgres:15`)\n" +
      "or point DATABASE_URL at a server you can use (user with CREATE SCHEMA rights).",
  );
}
