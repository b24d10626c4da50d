// The kit's service-fault tests on PostgreSQL: the checkpointer's backend is terminated (`pg_terminate_backend`,
// what a failover or an administrator sends: 57P01) while it writes a step, in each durability mode. To land the
// termination inside a write, the test holds a lock on the workflow's row: the write waits on it, and the test
// terminates exactly the backends of this checkpointer (a distinctive application_name) that wait on a lock — but
// not a lease renewal caught on the same row, which is retried and would let the run go on.
import { describeServiceFaults } from "@graph/checkpoint-conformance";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { PostgresCheckpointer } from "../src/index.js";
import { admin, DATABASE_URL, dropSchemas, randomSchema, requirePostgres, urlWith } from "./fixtures/server.js";

const schema = randomSchema("service_faults");
const appName = `graph_service_faults_${Math.random().toString(36).slice(2, 10)}`;
beforeAll(requirePostgres);
afterAll(() => dropSchemas([schema]));

describeServiceFaults({
  name: "PostgreSQL backend terminated",
  open: (durability) =>
    new PostgresCheckpointer({
      connectionString: urlWith({ application_name: appName }),
      schema,
      policy: { durability },
    }),
  inject: async ({ workflowId, proceed }) => {
    const locker = new pg.Client({ connectionString: DATABASE_URL });
    locker.on("error", () => undefined);
    await locker.connect();
    try {
      await locker.query("BEGIN");
      await locker.query(`SELECT 1 FROM "${schema}".workflows WHERE id = $1 FOR UPDATE`, [workflowId]);
      proceed();
      let terminated = 0;
      for (let attempt = 0; attempt < 1000 && terminated === 0; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        const rows = await admin<{ terminated: boolean }>(
          // Not a lease renewal that waits on the row too (its retry would carry the run on): the step write.
          "SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE application_name = $1 " +
            "AND wait_event_type = 'Lock' AND query NOT LIKE '%SET lease_expires_at%'",
          [appName],
        );
        terminated = rows.filter((row) => row.terminated).length;
      }
      if (terminated === 0) throw new Error("no write of the checkpointer waited on the workflow's row within 10 s");
    } finally {
      await locker.query("ROLLBACK").catch(() => undefined);
      await locker.end().catch(() => undefined);
    }
  },
});
