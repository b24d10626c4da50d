// Finds the servers the tests use. Redis: REDIS_URL when set, else a redis-server started here on a free port
// (stopped by its PID at the end). PostgreSQL: DATABASE_URL when set, else 127.0.0.1:5432 (user postgres); each
// test file uses its own schema. Tests read them with `inject(...)`.

import type { StartedServer } from "@graph/test-redis";
import { startRedisServer } from "@graph/test-redis";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
    databaseUrl: string;
  }
}

let server: StartedServer | undefined;

export async function setup(project: TestProject): Promise<void> {
  const fromEnv = process.env["REDIS_URL"];
  if (fromEnv !== undefined && fromEnv !== "") project.provide("redisUrl", fromEnv);
  else {
    server = await startRedisServer();
    project.provide("redisUrl", server.url);
  }
  const db = process.env["DATABASE_URL"];
  project.provide("databaseUrl", db !== undefined && db !== "" ? db : "postgres://postgres@127.0.0.1:5432/postgres");
}

export async function teardown(): Promise<void> {
  await server?.stop();
}
