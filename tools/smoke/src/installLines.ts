// The install lines the documentation shows: each table cell of docs/install.md, and each shell block of the
// READMEs, is what one user types into one project, in order.
import fs from "node:fs";
import path from "node:path";
import { root } from "./pack.js";

export interface InstallLines {
  /** Where it is shown, `path:line`. */
  readonly where: string;
  /** The commands, in order, as a user types them (comments removed, `a && b` split). */
  readonly commands: readonly string[];
}

const commandsOf = (line: string): string[] =>
  line
    .replace(/\s#.*$/, "")
    .split("&&")
    .map((c) => c.trim().replace(/\s+/g, " "))
    .filter((c) => c.startsWith("npm "));

function tableLines(file: string): InstallLines[] {
  const rel = path.relative(root, file);
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line, i) =>
      line.startsWith("|")
        ? [...line.matchAll(/`(npm i [^`]+)`/g)].map((m) => ({ where: `${rel}:${i + 1}`, commands: commandsOf(m[1]!) }))
        : [],
    );
}

function shellBlocks(file: string): InstallLines[] {
  const rel = path.relative(root, file);
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const blocks: InstallLines[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(bash|sh|shell)?\s*$/.test(lines[i]!.trim()) || lines[i]!.trim() === "```") continue;
    const start = i;
    const commands: string[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== "```"; i++)
      if (lines[i]!.trim().startsWith("npm i")) commands.push(...commandsOf(lines[i]!.trim()));
    if (commands.length > 0) blocks.push({ where: `${rel}:${start + 1}`, commands });
  }
  return blocks;
}

/** Every documented install of a `@graph` package. */
export function documentedInstalls(): InstallLines[] {
  const readmes = [
    path.join(root, "README.md"),
    ...fs
      .readdirSync(path.join(root, "packages"))
      .sort()
      .map((p) => path.join(root, "packages", p, "README.md")),
  ].filter((f) => fs.existsSync(f));
  return [...tableLines(path.join(root, "docs/install.md")), ...readmes.flatMap(shellBlocks)].filter((l) =>
    l.commands.some((c) => c.includes("@graph/")),
  );
}
