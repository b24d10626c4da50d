import type { PostgresCheckpointer } from "@graph/checkpoint-postgres";
import { afterAll } from "vitest";
import { postgresRows } from "./support/rawStores.js";
import { DATABASE_URL, postgresSchemas } from "./support/services.js";
import { describeUpgradeUnderLease } from "./support/underLease.js";

const schemas = postgresSchemas();
afterAll(() => schemas.drop());
describeUpgradeUnderLease("PostgreSQL, holder in another process", {
  open: () => schemas.open("lease"),
  location: (checkpointer) => {
    const url = new URL(DATABASE_URL);
    url.searchParams.set("schema", (checkpointer as PostgresCheckpointer).schema);
    return { store: url.toString() };
  },
  raw: postgresRows,
});
