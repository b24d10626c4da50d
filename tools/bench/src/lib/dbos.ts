// The durable 10-node workflow in DBOS Transact: a registered workflow calling 10 registered steps, each `async v =>
// v + 1`. DBOS commits each step's output to its system database before the next step runs — the same promise as
// our `durability: "sync"`. Loaded with a dynamic import (only the durable peer rows pay for it).
//
// The system database is the bench's own (`bench_dbos` on the bench's server, created by DBOS at launch and
// dropped by `dropDbos`), never the database in DATABASE_URL itself.
import type { PgPool } from "./drivers.js";

const DBOS_DATABASE = "bench_dbos";

/** `url` with its database name replaced. */
function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export interface DbosKit {
  /** Runs the 10-step workflow once (a fresh workflow id each call) and returns its result. */
  chain(v0: number): Promise<number>;
  shutdown(): Promise<void>;
}

export async function launchDbos(url: string, length: number): Promise<DbosKit> {
  const { DBOS } = await import("@dbos-inc/dbos-sdk");
  DBOS.setConfig({ name: "graph-bench", systemDatabaseUrl: withDatabase(url, DBOS_DATABASE), logLevel: "error" });
  const steps = Array.from({ length }, (_, i) => DBOS.registerStep(async (v: number) => v + 1, { name: `n${i}` }));
  const chain = DBOS.registerWorkflow(
    async (v: number) => {
      for (const step of steps) v = await step(v);
      return v;
    },
    { name: `chain${length}` },
  );
  await DBOS.launch();
  // Called as a plain function: DBOS treats a call with a `this` as a call on a configured instance.
  return { chain: (v0) => chain(v0), shutdown: () => DBOS.shutdown({ deregister: true }) };
}

/** Drops the DBOS system database (after `shutdown`, so its connections are gone). */
export async function dropDbos(admin: PgPool): Promise<void> {
  await admin.query(`DROP DATABASE IF EXISTS ${DBOS_DATABASE} WITH (FORCE)`);
}
