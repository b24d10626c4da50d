// What `changeset publish` would do, without publishing: the changesets are valid (`changeset status`), `changeset
// version` (run on a scratch copy) bumps every package together and writes each CHANGELOG.md, and each tarball
// (packed as the publish packs it) holds what its manifest promises and nothing that only works in the repository.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { exec, type Manifest, publishedPackages, readJson, root, tarballFiles, tarballManifest } from "../src/pack.js";
import { tmp } from "../src/project.js";

const packages = publishedPackages();
const changeset = path.join(root, "node_modules/.bin/changeset");

/** Every file an `exports` entry points at (all conditions, `@graph/source` included: `src` ships too). */
function exportTargets(exports: unknown): string[] {
  if (typeof exports === "string") return [exports.replace(/^\.\//, "")];
  if (exports === null || typeof exports !== "object") return [];
  return Object.values(exports).flatMap(exportTargets);
}

/** The peers a user must install next to a package: its own required peers and those of its @graph dependencies. */
function requiredPeers(name: string, seen = new Set<string>()): Set<string> {
  const pkg = packages.find((p) => p.name === name);
  if (pkg === undefined || seen.has(name)) return new Set();
  seen.add(name);
  const m = pkg.manifest;
  const peers = new Set(
    Object.keys(m.peerDependencies ?? {}).filter((peer) => m.peerDependenciesMeta?.[peer]?.optional !== true),
  );
  for (const dep of Object.keys(m.dependencies ?? {})) {
    if (dep.startsWith("@graph/")) for (const peer of requiredPeers(dep, seen)) peers.add(peer);
  }
  return peers;
}

describe.each(packages)("$name as published", (pkg) => {
  const tarball = () => {
    const file = inject("packed").tarballs[pkg.name];
    if (file === undefined) throw new Error(`${pkg.name} was not packed`);
    return file;
  };

  it("ships every file its manifest names, its README and LICENSE, and no tests or build configs", () => {
    const files = tarballFiles(tarball());
    const manifest = tarballManifest(tarball());
    for (const required of ["package.json", "README.md", "LICENSE", ...exportTargets(manifest["exports"])]) {
      expect(files, `${pkg.name} tarball lacks ${required}`).toContain(required);
    }
    for (const entry of pkg.manifest.files ?? []) {
      // CHANGELOG.md appears with the first `changeset version` (checked below); the rest must exist now.
      if (entry === "CHANGELOG.md" && !fs.existsSync(path.join(pkg.dir, entry))) continue;
      expect(
        files.some((file) => file === entry || file.startsWith(`${entry}/`)),
        `"files" lists ${entry}: not in the tarball`,
      ).toBe(true);
    }
    expect(files.filter((file) => /(^|\/)test\/|\.test\.|tsconfig|vitest\.config|project\.json/.test(file))).toEqual(
      [],
    );
  });

  it("publishes no scripts and no workspace ranges; runtime dependencies use caret ranges", () => {
    const manifest = tarballManifest(tarball());
    expect(manifest.scripts, "published scripts would point into the repository").toBeUndefined();
    for (const field of ["dependencies", "peerDependencies", "optionalDependencies"] as const) {
      for (const [dep, range] of Object.entries((manifest as Manifest & Record<string, unknown>)[field] ?? {})) {
        expect(range, `${field}.${dep}`).not.toMatch(/^workspace:/);
        // An optional peer is whatever copy the app already has (esbuild from its bundler): a range as wide as
        // the API used, since npm refuses an install whose present copy is outside an optional peer's range.
        if (field === "peerDependencies" && manifest.peerDependenciesMeta?.[dep]?.optional === true) continue;
        expect(range, `${field}.${dep} must be a caret range`).toMatch(/^\^\d/);
      }
    }
  });

  it("README starts with the npm i line, peers included", () => {
    const readme = fs.readFileSync(path.join(pkg.dir, "README.md"), "utf8");
    const firstBlock = /```(\w*)\n([\s\S]*?)```/.exec(readme);
    expect(firstBlock?.[1], "the README's first code block is the install command").toBe("bash");
    const install = (firstBlock?.[2] ?? "").split("\n").find((line) => line.startsWith("npm i "));
    expect(install, "`npm i …` line").toBeDefined();
    // A peer may be pinned to the major that works (`effect@3`): the name is the word without its version.
    const words = new Set(
      install
        ?.split(/\s+/)
        .slice(2)
        .map((word) => word.replace(/(?<=.)@[^@/]*$/, "")),
    );
    for (const name of [pkg.name, ...requiredPeers(pkg.name)])
      expect([...words], `npm i line names ${name}`).toContain(name);
  });
});

describe("@graph/devtools page assets", () => {
  it("ships the page and the one Mermaid bundle it loads, not the mermaid package", () => {
    const devtools = inject("packed").tarballs["@graph/devtools"];
    if (devtools === undefined) throw new Error("@graph/devtools was not packed");
    const files = tarballFiles(devtools);
    for (const asset of ["index.html", "app.js", "model.js", "app.css", "vendor/mermaid.min.js"]) {
      expect(files).toContain(`assets/${asset}`);
    }
    expect(tarballManifest(devtools).dependencies?.["mermaid"]).toBeUndefined();
  });
});

describe("changesets", () => {
  it("changeset status accepts the pending changesets", async () => {
    // `changeset status` compares with the base branch; a clone of another branch may have no local `main`: then
    // it compares with HEAD (the changeset files are still read and checked).
    const hasMain =
      (await exec("git", ["rev-parse", "--verify", "--quiet", "main"], { cwd: root, timeoutMs: 10_000 })).code === 0;
    const status = await exec(changeset, ["status", ...(hasMain ? [] : ["--since=HEAD"])], {
      cwd: root,
      timeoutMs: 60_000,
    });
    expect(status.code, status.output).toBe(0);
  });

  it("changeset version bumps every package to one version and writes each CHANGELOG.md", async () => {
    // A scratch copy of what `changeset version` reads and writes: the manifests, the changesets, the changelogs.
    const scratch = tmp();
    try {
      for (const file of ["package.json", "pnpm-workspace.yaml"]) {
        fs.copyFileSync(path.join(root, file), path.join(scratch, file));
      }
      fs.cpSync(path.join(root, ".changeset"), path.join(scratch, ".changeset"), { recursive: true });
      for (const group of ["packages", "apps", "tools"]) {
        for (const name of fs.readdirSync(path.join(root, group))) {
          const from = path.join(root, group, name);
          if (!fs.existsSync(path.join(from, "package.json"))) continue;
          fs.mkdirSync(path.join(scratch, group, name), { recursive: true });
          for (const file of ["package.json", "CHANGELOG.md"]) {
            if (fs.existsSync(path.join(from, file)))
              fs.copyFileSync(path.join(from, file), path.join(scratch, group, name, file));
          }
        }
      }
      const versioned = await exec(changeset, ["version"], { cwd: scratch, timeoutMs: 60_000 });
      expect(versioned.code, versioned.output).toBe(0);
      const versions = new Set<string>();
      for (const pkg of packages) {
        const folder = path.join(scratch, "packages", pkg.folder);
        const { version } = readJson<Manifest>(path.join(folder, "package.json"));
        versions.add(version);
        const changelog = path.join(folder, "CHANGELOG.md");
        expect(fs.existsSync(changelog), `${pkg.name}: changeset version wrote no CHANGELOG.md`).toBe(true);
        expect(fs.readFileSync(changelog, "utf8")).toContain(`## ${version}`);
      }
      // One fixed group; and no package is dragged to a major no changeset asked for (changesets bumps a package
      // a major when a sibling's release leaves the range of its peer dependency on it).
      expect([...versions]).toHaveLength(1);
      const [next = ""] = [...versions];
      const askedMajor = fs
        .readdirSync(path.join(root, ".changeset"))
        .filter((file) => file.endsWith(".md"))
        .some((file) =>
          /^["']?@graph\/[\w-]+["']?:\s*major\s*$/m.test(fs.readFileSync(path.join(root, ".changeset", file), "utf8")),
        );
      const current = packages[0]?.manifest.version ?? "";
      if (!askedMajor) expect(next.split(".")[0], `the next version ${next}`).toBe(current.split(".")[0]);
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });
});
