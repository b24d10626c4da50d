import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

/** Debian's Chromium; `CHROMIUM_PATH` overrides. */
const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/**
 * Makes sure Chromium is installed: installs Debian's package when missing and running as root, otherwise fails
 * saying how to install it. Never downloads a browser through Playwright (that needs a CDN this setup can't reach).
 */
export function ensureChromium(): string {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const how =
    "Install Debian's Chromium: `sudo apt-get update && sudo apt-get install -y chromium` (or set CHROMIUM_PATH to a Chromium binary).";
  if (!isRoot || process.env["CHROMIUM_PATH"] !== undefined)
    throw new Error(`Chromium not found at ${CHROMIUM}. ${how}`);
  process.stderr.write(`Chromium not found at ${CHROMIUM}: installing Debian's package (apt-get install chromium)…\n`);
  for (const args of [["update"], ["install", "-y", "--no-install-recommends", "chromium"]]) {
    const r = spawnSync("apt-get", args, {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    if (r.status !== 0) throw new Error(`\`apt-get ${args.join(" ")}\` failed (exit ${String(r.status)}). ${how}`);
  }
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium but ${CHROMIUM} is still missing. ${how}`);
  return CHROMIUM;
}
