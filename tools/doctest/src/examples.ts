// Finds the TypeScript examples of the repository: ```ts blocks of the READMEs and docs/, and the ```ts blocks of
// TSDoc `@example` tags in the packages' sources. A block fenced as ```ts nocheck is shown to readers but skipped.
import fs from "node:fs";
import path from "node:path";

export interface Example {
  /** Where the block starts, as `path:line` relative to the repository root. */
  readonly where: string;
  /** The package the block documents (its examples may use that package's exports without importing them). */
  readonly packageName: string | undefined;
  readonly code: string;
}

const END_OF_COMMENT = "\u0000end";
const FENCE = /^```(ts|typescript)(?:[ \t]+(\S+))?[ \t]*$/;

function blocksOf(lines: readonly string[]): { line: number; code: string }[] {
  const blocks: { line: number; code: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!.trim());
    if (open === null) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== "```"; i++) body.push(lines[i]!);
    if (open[2] !== "nocheck") blocks.push({ line: start + 1, code: body.join("\n") });
  }
  return blocks;
}

/** The lines of the TSDoc comments of a source file, with the leading ` * ` removed. */
function docCommentLines(source: string): { lines: string[]; lineOf: number[] } {
  const lines: string[] = [];
  const lineOf: number[] = [];
  const all = source.split("\n");
  let inside = false;
  for (const [n, raw] of all.entries()) {
    const text = raw.trim();
    if (!inside && text.startsWith("/**")) inside = true;
    if (inside) {
      lines.push(raw.replace(/^\s*\/?\*+\/?\s?/, "").replace(/\*\/\s*$/, ""));
      lineOf.push(n + 1);
    }
    if (inside && text.endsWith("*/")) {
      inside = false;
      lines.push(END_OF_COMMENT);
      lineOf.push(n + 1);
    }
  }
  return { lines, lineOf };
}

function walk(dir: string, keep: (file: string) => boolean, out: string[] = []): string[] {
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "dist") walk(full, keep, out);
    } else if (keep(full)) out.push(full);
  }
  return out;
}

function packageNameOf(root: string, file: string): string | undefined {
  const rel = path.relative(root, file).split(path.sep);
  if (rel[0] !== "packages" || rel.length < 3) return undefined;
  const manifest = path.join(root, "packages", rel[1]!, "package.json");
  return fs.existsSync(manifest) ? (JSON.parse(fs.readFileSync(manifest, "utf8")).name as string) : undefined;
}

/** Every checked example of the repository at `root`, in a stable order. */
export function findExamples(root: string): Example[] {
  const examples: Example[] = [];
  const markdown = [
    path.join(root, "README.md"),
    path.join(root, "CONTRIBUTING.md"),
    ...walk(path.join(root, "docs"), (f) => f.endsWith(".md") && !f.includes(`${path.sep}api${path.sep}`)),
    ...walk(path.join(root, "packages"), (f) => f.endsWith("README.md")),
  ].filter((f) => fs.existsSync(f));
  for (const file of markdown.sort()) {
    const packageName = packageNameOf(root, file);
    for (const block of blocksOf(fs.readFileSync(file, "utf8").split("\n"))) {
      examples.push({ where: `${path.relative(root, file)}:${block.line}`, packageName, code: block.code });
    }
  }
  const sources = walk(path.join(root, "packages"), (f) => /[/\\]src[/\\].*\.ts$/.test(f) && !f.endsWith(".d.ts"));
  for (const file of sources.sort()) {
    const { lines, lineOf } = docCommentLines(fs.readFileSync(file, "utf8"));
    const packageName = packageNameOf(root, file);
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i]!.trim().startsWith("@example")) continue;
      // The example's fenced block follows the tag, up to the next tag or the end of the comment.
      let end = i + 1;
      while (end < lines.length && lines[end] !== END_OF_COMMENT && !lines[end]!.trim().startsWith("@")) end++;
      for (const block of blocksOf(lines.slice(i + 1, end))) {
        const line = lineOf[i + block.line] ?? lineOf[i]!;
        examples.push({ where: `${path.relative(root, file)}:${line}`, packageName, code: block.code });
      }
    }
  }
  return examples;
}
