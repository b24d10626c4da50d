// When better-sqlite3's native binding cannot be loaded (its install script never ran, or it was built for another
// Node.js), the checkpointer says so and how to fix it — not "check that the database is reachable". The load
// failures are the real ones: better-sqlite3's own `bindings` lookup run against a package folder with no build,
// and Node's dlopen of a file that is no binding.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { SqliteCheckpointer } from "../src/index.js";

const state = vi.hoisted(() => ({ mode: "missing" as "missing" | "wrong-binary", dir: "" }));

vi.mock("better-sqlite3", async () => {
  const { createRequire: requireFrom } = await import("node:module");
  const fsModule = await import("node:fs");
  const osModule = await import("node:os");
  const pathModule = await import("node:path");
  const fromSqlite = requireFrom(requireFrom(import.meta.url).resolve("better-sqlite3"));
  const bindings = fromSqlite("bindings") as (options: { bindings: string; module_root: string }) => unknown;
  state.dir = fsModule.mkdtempSync(pathModule.join(osModule.tmpdir(), "graph-sqlite-binding-"));
  fsModule.writeFileSync(pathModule.join(state.dir, "package.json"), '{"name":"better-sqlite3"}');
  // What `new Database()` does first: load the binding (better-sqlite3/lib/database.js).
  function Database() {
    if (state.mode === "missing") return bindings({ bindings: "better_sqlite3.node", module_root: state.dir });
    const fake = pathModule.join(state.dir, "better_sqlite3.node");
    fsModule.writeFileSync(fake, "not a shared object");
    return fromSqlite(fake);
  }
  return { default: Database };
});

afterAll(() => {
  if (state.dir !== "") fs.rmSync(state.dir, { recursive: true, force: true });
});

const file = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "graph-sqlite-nb-")), "graph.db");

describe("SqliteCheckpointer without a loadable better-sqlite3 binding", () => {
  it("a missing build says the native module is not built and how to build it", async () => {
    state.mode = "missing";
    const checkpointer = new SqliteCheckpointer({ path: file() });
    const error = await checkpointer.setup().catch((e: unknown) => e);
    expect(error).toMatchObject({ _tag: "CheckpointError", operation: "open" });
    const message = (error as Error).message;
    expect(message).toContain(
      "SqliteCheckpointer: the better-sqlite3 native module is not built: run `npm rebuild better-sqlite3`",
    );
    expect(message).toContain("npm approve-scripts better-sqlite3");
    expect(message).not.toContain("reachable");
    expect(((error as Error).cause as Error).message).toMatch(/^Could not locate the bindings file\. Tried:/);
    // Every later call says the same (nothing half-opened is cached).
    const again = await checkpointer.listWorkflows().catch((e: unknown) => e);
    expect((again as Error).message).toContain("the better-sqlite3 native module is not built");
    await checkpointer.close();
  });

  it("a binding that does not load (another Node.js, another platform) says so", async () => {
    state.mode = "wrong-binary";
    const checkpointer = new SqliteCheckpointer({ path: file() });
    const error = await checkpointer.setup().catch((e: unknown) => e);
    expect(error).toMatchObject({ _tag: "CheckpointError", operation: "open" });
    expect((error as Error).message).toMatch(
      /^SqliteCheckpointer: the better-sqlite3 native module was built for another Node\.js version or platform \(.*better_sqlite3\.node.*\): run `npm rebuild better-sqlite3`/,
    );
    expect(((error as Error).cause as { code?: string }).code).toBe("ERR_DLOPEN_FAILED");
    await checkpointer.close();
  });
});
