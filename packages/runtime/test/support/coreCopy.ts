import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

type Core = typeof import("@graph/core");

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const corePackage = path.join(root, "packages/core");

/**
 * A second copy of `@graph/core` as an app gets it when a dedupe misses: the package's `dist` (built with its own
 * `tsconfig.build.json`; the type check is left to the real build) with its `package.json`, in a folder of its own,
 * resolving its dependencies (`@graph/errors`, graphology) the way the first copy does. `protocol` rewrites the
 * copy's node protocol, to stand for another version of the package.
 */
export class CoreCopies {
  readonly #work = fs.mkdtempSync(path.join(root, "packages/runtime/.tmp-core-copy-"));
  #built: string | undefined;

  /** Builds core's dist once (tsc, a few seconds). */
  #dist(): string {
    if (this.#built !== undefined) return this.#built;
    const out = path.join(this.#work, "build/dist");
    const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
    const build = spawnSync(
      process.execPath,
      [
        tsc,
        "-p",
        path.join(corePackage, "tsconfig.build.json"),
        "--outDir",
        out,
        "--noCheck",
        "--declaration",
        "false",
        "--declarationMap",
        "false",
        "--sourceMap",
        "false",
      ],
      { encoding: "utf8" },
    );
    if (build.status !== 0) throw new Error(`building @graph/core failed:\n${build.stdout}${build.stderr}`);
    this.#built = out;
    return out;
  }

  /** A copy of the built package under `name`, imported; `protocol` replaces its node protocol number. */
  async load(name: string, protocol?: number): Promise<Core> {
    const dir = path.join(this.#work, name);
    fs.cpSync(this.#dist(), path.join(dir, "dist"), { recursive: true });
    fs.copyFileSync(path.join(corePackage, "package.json"), path.join(dir, "package.json"));
    fs.symlinkSync(path.join(corePackage, "node_modules"), path.join(dir, "node_modules"), "dir");
    if (protocol !== undefined) {
      const brands = path.join(dir, "dist/brands.js");
      const source = fs.readFileSync(brands, "utf8");
      const changed = source.replace(/export const NODE_PROTOCOL = \d+;/, `export const NODE_PROTOCOL = ${protocol};`);
      if (changed === source) throw new Error("the copy's brands.js no longer declares NODE_PROTOCOL as expected");
      fs.writeFileSync(brands, changed);
    }
    return (await import(pathToFileURL(path.join(dir, "dist/index.js")).href)) as Core;
  }

  remove(): void {
    fs.rmSync(this.#work, { recursive: true, force: true });
  }
}
