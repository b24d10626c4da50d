// Finds the Redis the tests use: REDIS_URL when set, else a redis-server started here on a free port (stopped by
// its PID when the run ends). Tests read it with `inject("redisUrl")`.

import type { StartedServer } from "@graph/test-redis";
import { startRedisServer } from "@graph/test-redis";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

let server: StartedServer | undefined;

export async function setup(project: TestProject): Promise<void> {
  const fromEnv = process.env["REDIS_URL"];
  if (fromEnv !== undefined && fromEnv !== "") {
    project.provide("redisUrl", fromEnv);
    return;
  }
  server = await startRedisServer();
  project.provide("redisUrl", server.url);
}

export async function teardown(): Promise<void> {
  await server?.stop();
}
