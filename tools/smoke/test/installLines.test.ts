// The install lines of docs/install.md and the READMEs, typed as written into an empty folder with plain npm (the
// @graph packages from their release tarballs, everything else from the registry), each within a minute. A line
// that leaves a peer's major open can make npm pick an incompatible `latest` and thrash on ERESOLVE for minutes.
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { documentedInstalls } from "../src/installLines.js";
import { exec, publishedPackages } from "../src/pack.js";
import { localPrebuild, tmp, userEnv } from "../src/project.js";

const LIMIT_MS = 60_000;
const installs = documentedInstalls();
/** Each distinct sequence of commands once, named by every place that shows it. */
const byCommands = new Map<string, { where: string[]; commands: readonly string[] }>();
for (const { where, commands } of installs) {
  const key = commands.join(" ; ");
  const seen = byCommands.get(key) ?? { where: [], commands };
  byCommands.set(key, { ...seen, where: [...seen.where, where] });
}
const distinct = [...byCommands.values()].map((d) => ({ where: d.where.join(", "), commands: d.commands }));
const work = tmp();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe("documented install lines", () => {
  it("pin the peers' majors that work: effect@3, ai@6, @ai-sdk/react@3", () => {
    expect(installs.length).toBeGreaterThanOrEqual(20);
    for (const { where, commands } of installs)
      for (const command of commands) {
        const words = command.split(" ");
        for (const [peer, pinned] of [
          ["effect", "effect@3"],
          ["ai", "ai@6"],
          ["@ai-sdk/react", "@ai-sdk/react@3"],
          // The newest OpenTelemetry SDK takes API versions below 1.10 only.
          ["@opentelemetry/api", "@opentelemetry/api@1.9"],
        ] as const)
          if (words.some((w) => w === peer || w.startsWith(`${peer}@`))) expect(words, where).toContain(pinned);
      }
    // The rows a user of the AI SDK packages and of upgrades looks for.
    const table = installs.filter((l) => l.where.startsWith("docs/install.md")).map((l) => l.commands.join(" "));
    for (const name of ["@graph/ai-sdk", "@graph/react", "@graph/upgrade"])
      expect(table.some((c) => c.startsWith(`npm i ${name} `))).toBe(true);
  });

  it.each(distinct.map((d) => [d.where, d] as const))(
    "%s installs in an empty folder within a minute",
    async (_, { commands }) => {
      const tarballs = new Map(Object.entries(inject("packed").tarballs));
      const dir = fs.mkdtempSync(path.join(work, "line-"));
      const app = path.join(dir, "app");
      fs.mkdirSync(app);
      const prebuild = await localPrebuild(dir);
      // The unpublished @graph packages resolve to their tarballs wherever they are needed (a package the line names
      // by the same spec as its direct dependency, `$name`); better-sqlite3 to the version whose binding is offered
      // as a local prebuild (this machine cannot download one).
      const tarballOf = (name: string) => `file:${tarballs.get(name)}`;
      const manifestPath = path.join(app, "package.json");
      const writeOverrides = (direct: ReadonlySet<string>) => {
        const manifest = fs.existsSync(manifestPath)
          ? (JSON.parse(fs.readFileSync(manifestPath, "utf8")) as Record<string, unknown>)
          : { name: "graph-install-line", private: true, type: "module" };
        const overrides: Record<string, string> = Object.fromEntries(
          publishedPackages().map((p) => [p.name, direct.has(p.name) ? `$${p.name}` : tarballOf(p.name)]),
        );
        if (prebuild.version !== undefined) overrides["better-sqlite3"] = prebuild.version;
        fs.writeFileSync(manifestPath, `${JSON.stringify({ ...manifest, overrides }, null, 2)}\n`);
      };
      const env = userEnv({
        ...prebuild.env,
        npm_config_update_notifier: "false",
        npm_config_audit: "false",
        npm_config_fund: "false",
        npm_config_prefer_offline: "true",
      });
      const named: string[] = [];
      const started = Date.now();
      for (const command of commands) {
        const [npm, ...args] = command.split(" ") as [string, ...string[]];
        const words = args.map((w) => {
          if (!w.startsWith("@graph/")) return w;
          named.push(w);
          return `${w}@${tarballOf(w)}`;
        });
        writeOverrides(new Set(named));
        const left = LIMIT_MS * 2 - (Date.now() - started);
        const ran = await exec(npm, words, { cwd: app, env, timeoutMs: Math.max(left, 1_000) });
        expect(ran.code, `${command}\n${ran.output}`).toBe(0);
      }
      const tookMs = Date.now() - started;
      // Every package the line names is there and loads.
      for (const name of named) {
        const loaded = await exec(process.execPath, ["--input-type=module", "-e", `await import("${name}");`], {
          cwd: app,
          env,
          timeoutMs: 30_000,
        });
        expect(loaded.code, `${name}: ${loaded.output}`).toBe(0);
      }
      expect(tookMs, commands.join(" ; ")).toBeLessThan(LIMIT_MS);
    },
    180_000,
  );
});
