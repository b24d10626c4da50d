// Makes sure the PostgreSQL server the integration tests need is reachable.
// Order: DATABASE_URL if set → the local default 127.0.0.1:5432 → start the machine's cluster →
// start a throwaway server from the PostgreSQL binaries. Never skips silently: if nothing works it says how to fix.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

function reachable(host, port, timeoutMs = 1500) {
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

/** Returns a DATABASE_URL that answers, starting a server if needed; throws with instructions otherwise. */
export async function ensurePostgres() {
  const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const { host, port } = target(url);
  if (await reachable(host, port)) return url;
  if (process.env.DATABASE_URL) {
    throw new Error(
      `DATABASE_URL points at ${host}:${port}, which does not answer. Start that server or unset DATABASE_URL to use a local one.`,
    );
  }
  console.log("› PostgreSQL is not running on 127.0.0.1:5432; trying to start it");
  if (fs.existsSync("/etc/postgresql")) {
    for (const version of fs.readdirSync("/etc/postgresql")) {
      sh("pg_ctlcluster", ["--skip-systemctl-redirect", version, "main", "start"]);
    }
    for (let i = 0; i < 20 && !(await reachable(host, port)); i++) await new Promise((r) => setTimeout(r, 250));
    if (await reachable(host, port)) return url;
  }
  const binDir = fs.existsSync("/usr/lib/postgresql")
    ? fs
        .readdirSync("/usr/lib/postgresql")
        .map((v) => `/usr/lib/postgresql/${v}/bin`)
        .find((d) => fs.existsSync(`${d}/initdb`))
    : undefined;
  if (binDir) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "graph-pg-"));
    const asPostgres = process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--"]] : [null, []];
    if (asPostgres[0]) sh("chown", ["postgres", dir]);
    const exec = (bin, args) =>
      asPostgres[0] ? sh(asPostgres[0], [...asPostgres[1], `${binDir}/${bin}`, ...args]) : sh(`${binDir}/${bin}`, args);
    const init = exec("initdb", ["-D", `${dir}/data`, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale"]);
    const start =
      init.status === 0 &&
      exec("pg_ctl", [
        "-D",
        `${dir}/data`,
        "-l",
        `${dir}/log`,
        "-w",
        "-o",
        `-p 5433 -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
        "start",
      ]);
    if (start && start.status === 0) {
      console.log(`› started a throwaway PostgreSQL in ${dir} on port 5433 (stop it with: pg_ctl -D ${dir}/data stop)`);
      return "postgres://postgres@127.0.0.1:5433/postgres";
    }
  }
  throw new Error(
    "PostgreSQL is needed by the @graph/checkpoint-postgres tests and none is reachable on 127.0.0.1:5432.\n" +
      "Fix: start one (e.g. `pg_ctlcluster 15 main start`, or `docker run -p 5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust postgres:15`)\n" +
      "or point DATABASE_URL at a server you can use (user with CREATE SCHEMA rights).",
  );
}
