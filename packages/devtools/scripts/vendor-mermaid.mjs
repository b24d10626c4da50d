#!/usr/bin/env node
// Part of the build: copies the one Mermaid file the page loads (the self-contained, minified browser build) and
// Mermaid's license into assets/vendor/, which the package ships. Mermaid itself stays a devDependency, so a user's
// install gets these ~3.5 MB instead of the whole mermaid package and its dependency tree (~84 MB).
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const mermaid = path.dirname(createRequire(path.join(pkg, "package.json")).resolve("mermaid/package.json"));
const out = path.join(pkg, "assets/vendor");
fs.mkdirSync(out, { recursive: true });
fs.copyFileSync(path.join(mermaid, "dist/mermaid.min.js"), path.join(out, "mermaid.min.js"));
fs.copyFileSync(path.join(mermaid, "LICENSE"), path.join(out, "mermaid.LICENSE"));
