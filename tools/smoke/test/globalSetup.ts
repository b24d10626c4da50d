// Packs every published package once for both test files (the smoke install and the release checks), the way a
// release packs them; the tarballs are removed when the run ends.
import fs from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { packAll, publishedPackages } from "../src/pack.js";
import { tmp } from "../src/project.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The folder holding the packs, and package name → tarball path. */
    packed: { dir: string; tarballs: Record<string, string> };
  }
}

let dir: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  dir = tmp();
  const tarballs = await packAll(publishedPackages(), path.join(dir, "tarballs"));
  project.provide("packed", { dir, tarballs: Object.fromEntries(tarballs) });
}

export function teardown(): void {
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
}
