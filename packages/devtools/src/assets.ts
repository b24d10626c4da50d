import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Files the page loads, all served from this package (no CDN: the page works offline). */
const ASSET_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "assets");

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

const FILES: Record<string, () => string> = {
  "/": () => path.join(ASSET_DIR, "index.html"),
  "/app.js": () => path.join(ASSET_DIR, "app.js"),
  "/model.js": () => path.join(ASSET_DIR, "model.js"),
  "/dom.js": () => path.join(ASSET_DIR, "dom.js"),
  "/forms.js": () => path.join(ASSET_DIR, "forms.js"),
  "/graph.js": () => path.join(ASSET_DIR, "graph.js"),
  "/history.js": () => path.join(ASSET_DIR, "history.js"),
  "/panels.js": () => path.join(ASSET_DIR, "panels.js"),
  "/timeline.js": () => path.join(ASSET_DIR, "timeline.js"),
  "/app.css": () => path.join(ASSET_DIR, "app.css"),
  // The self-contained browser build of Mermaid: the copy the build puts in assets/vendor (what the package ships),
  // else, when running from source before a build, the one in the `mermaid` devDependency.
  "/mermaid.min.js": () => {
    const shipped = path.join(ASSET_DIR, "vendor", "mermaid.min.js");
    if (existsSync(shipped)) return shipped;
    return path.join(
      path.dirname(createRequire(import.meta.url).resolve("mermaid/package.json")),
      "dist",
      "mermaid.min.js",
    );
  },
};

const cache = new Map<string, { body: Buffer; type: string }>();

/** The asset served at `urlPath`, or undefined when there is none. Read once, then kept in memory. */
export async function asset(urlPath: string): Promise<{ body: Buffer; type: string } | undefined> {
  const locate = FILES[urlPath];
  if (locate === undefined) return undefined;
  let hit = cache.get(urlPath);
  if (hit === undefined) {
    const file = locate();
    hit = { body: await readFile(file), type: TYPES[path.extname(file)] ?? "application/octet-stream" };
    cache.set(urlPath, hit);
  }
  return hit;
}
