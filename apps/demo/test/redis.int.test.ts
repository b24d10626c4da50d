// The pause → resume flow against Redis (`--db redis://…`), under a throwaway key prefix deleted afterwards.
// Redis must be reachable: REDIS_URL, else redis://127.0.0.1:6379. If it is not, the test fails and says how to
// start one; it never skips.
import { RedisCheckpointer } from "@graph/checkpoint-redis";
import { afterAll, describe, expect, it } from "vitest";
import { expectSuccess, HIGH_RISK_TICKET, runDemo } from "./helpers.js";

const REDIS_URL = process.env["REDIS_URL"] ?? "redis://127.0.0.1:6379";
const schema = `graph_demo_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
const open = () => new RedisCheckpointer({ url: REDIS_URL, prefix: `${schema}:` });

/** Fails (never skips) with instructions when the server is unreachable. */
async function requireRedis(): Promise<void> {
  const probe = open();
  try {
    await probe.setup();
  } catch (error) {
    throw new Error(
      `The demo's Redis test needs a server at ${probe.address} and cannot reach it (${String(error)}).\n` +
        'Start one — `apt-get install redis-server` then `redis-server --port 6379 --save ""`, or ' +
        "`docker run -p 6379:6379 redis:7` — or point REDIS_URL at a running Redis >= 6.2.",
    );
  } finally {
    await probe.close();
  }
}

afterAll(async () => {
  const store = open();
  await store.clear().catch(() => undefined);
  await store.close();
});

describe("demo on Redis", () => {
  it("pauses for approval, then --resume <id> --approve completes it", async () => {
    // Checked inside the test (not in a hook) so an unreachable server is a failed test, never a skipped one.
    await requireRedis();
    const db = ["--db", REDIS_URL, "--schema", schema, "--delay-ms", "1"];
    const first = expectSuccess(
      await runDemo(["--ticket", HIGH_RISK_TICKET, "--id", "redis-refund", "--detach", ...db]),
    );
    expect(first.stdout).toContain("Redis");
    expect(first.stdout).toContain(`(key prefix ${schema}:)`);
    expect(first.stdout).toContain("redis-refund stays paused at the approval");
    const store = open();
    try {
      expect(await store.getWorkflow("redis-refund")).toMatchObject({
        status: "paused",
        pause: { nodeName: "approval", responseKey: "decision" },
      });
    } finally {
      await store.close();
    }

    const listed = expectSuccess(await runDemo(["--list", ...db]));
    expect(listed.stdout).toMatch(/redis-refund\s+paused at approval/);

    const second = expectSuccess(await runDemo(["--resume", "redis-refund", "--approve", ...db]));
    expect(second.stdout).toContain("✔ Reply sent · approved by --approve · first draft");
    const after = open();
    try {
      expect((await after.getWorkflow("redis-refund"))?.status).toBe("completed");
      expect((await after.getState("redis-refund"))["resolution"]).toMatchObject({
        outcome: "sent",
        approvedBy: "--approve",
        revisions: 0,
      });
    } finally {
      await after.close();
    }
  });
});
