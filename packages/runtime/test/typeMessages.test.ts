import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// The compile errors a user reads, checked as text: each mistake below is compiled by the real `tsc` (the workspace's
// strict settings, the sources as a user's code resolves them) and the diagnostic at its line must say what is
// wrong and how to fix it, like the runtime's error for the same mistake. `@ts-expect-error` in the `*.test-d.ts`
// files only proves that there is an error; this proves what it says.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const work = fs.mkdtempSync(path.join(root, "packages/runtime/.tmp-messages-"));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const prelude = `import { END, Graph, node, route } from "@graph/core";
import { Runner } from "../src/index.js";
type Message = { role: "user" | "assistant"; text: string };
const agent = node({ output: "messages" }, function agent({ messages }: { messages: Message[] }) {
  return [...messages, { role: "assistant" as const, text: "ok" }];
});
const next = route({ targets: ["agent", END] }, function next({ messages }: { messages: Message[] }) {
  return messages.length > 3 ? END : "agent";
});
const chat = new Graph([agent, next], { name: "chat" });
const embed = node({ name: "embed", output: "embedding" }, ({ text }: { text: string }) => [text.length]);
const answer = node({ name: "answer", output: "answer" }, ({ embedding, query }: { embedding: number[]; query: string }) => query + embedding.length);
const rag = new Graph([embed, answer], { name: "rag" });
const draft = node({ output: "draft" }, function draft({ topic }: { topic: string }) { return topic; });
const publish = node({ name: "publish", output: "url" }, ({ draft }: { draft: string }) => draft);
const write = node({ output: "text" }, function write({ topic, feedback }: { topic: string; feedback: string }) { return topic + feedback; });
const critique = node({ output: "feedback" }, function critique({ text }: { text: string }) { return text.length > 9 ? "ok" : "more"; });
const again = route({ targets: ["write", END] }, function again({ feedback }: { feedback: string }) { return feedback === "ok" ? END : "write"; });
const refine = new Graph([write, critique, again], { name: "refine" });
const runner = new Runner();
`;

/** One mistake per line, and the message parts its diagnostic must contain. */
const cases: readonly { readonly name: string; readonly code: string; readonly says: readonly string[] }[] = [
  {
    name: "a loop's first-run input left out of the values",
    code: `void runner.run(chat, { values: {} });`,
    says: ["Property 'messages' is missing in type '{}'"],
  },
  {
    name: "a loop graph run with no options at all",
    code: `void runner.run(chat);`,
    says: ["Expected 2 arguments, but got 1."],
  },
  {
    name: "a loop whose first node the checker can't tell, run with only its inputs",
    code: `void runner.run(refine, { values: { topic: "graphs" } });`,
    says: [
      "✖ Missing a first value for the loop of graph 'refine': pass one of ",
      "'feedback'",
      "'text'",
      "(the one its first node reads), bind it, or give its reader a default",
    ],
  },
  {
    name: "a misspelled run value",
    code: `void runner.run(rag, { values: { text: "t", query: "q", qeury: "q" } });`,
    says: ["✖ Unknown value 'qeury' for graph 'rag': no node reads or produces it. Did you mean 'query'?"],
  },
  {
    name: "a run value no name is close to",
    code: `void runner.run(rag, { values: { text: "t", query: "q", limit: 3 } });`,
    says: ["✖ Unknown value 'limit' for graph 'rag': no node reads or produces it. Its inputs: "],
  },
  {
    name: "a misspelled value on a resume",
    code: `void runner.run(rag, { workflowId: "w1", values: { Query: "q" } });`,
    says: ["✖ Unknown value 'Query' for graph 'rag'", "Did you mean 'query'?"],
  },
  {
    name: "bind with a misspelled input",
    code: `rag.bind({ qeury: "fixed" });`,
    says: ["✖ Cannot bind 'qeury': it is not an input of graph 'rag'. Did you mean 'query'?"],
  },
  {
    name: "bind of a value a node produces",
    code: `rag.bind({ answer: "fixed" });`,
    says: [
      "✖ Cannot bind 'answer': it is produced by a node of graph 'rag' and no node reads it.",
      "pass 'answer' in run values to skip its producer.",
    ],
  },
  {
    name: "a misspelled gate target when every node is named",
    code: `new Graph([draft.withName("draft"), publish, route({ name: "r", targets: ["publsh", END] }, ({ url }: { url: string }) => (url ? END : "publsh"))]);`,
    says: ["✖ Gate target 'publsh' is not a node of this graph. Did you mean 'publish'?"],
  },
  {
    name: "more unmatched gate targets than nodes of unknown name",
    code: `new Graph([draft, publish, route({ name: "r", targets: ["x", "y", END] }, ({ url }: { url: string }) => (url ? END : "x"))]);`,
    says: ["✖ Gate targets ", "'x'", "'y'", "only 1 node(s) have a name it can't read"],
  },
];

/** Diagnostics of `tsc --pretty false`, each with its continuation lines, keyed by 1-based line. */
function diagnostics(output: string, file: string): Map<number, string> {
  const byLine = new Map<number, string>();
  let current: number | undefined;
  for (const line of output.split("\n")) {
    const head = /^(.+?)\((\d+),\d+\): error TS\d+: (.*)$/.exec(line);
    if (head) {
      current = path.resolve(work, head[1]!) === file ? Number(head[2]) : undefined;
      if (current !== undefined) byLine.set(current, `${byLine.get(current) ?? ""}${head[3]}\n`);
    } else if (current !== undefined && line.startsWith(" ")) byLine.set(current, `${byLine.get(current)}${line}\n`);
  }
  return byLine;
}

describe("compile errors read like the runtime's", () => {
  const file = path.join(work, "mistakes.ts");
  const lines = prelude.split("\n").length;
  fs.writeFileSync(
    file,
    prelude +
      cases.map((c) => c.code).join("\n") +
      '\nvoid runner.run(chat, { values: { messages: [{ role: "user", text: "hi" }] } });\n',
  );
  const config = path.join(work, "tsconfig.json");
  fs.writeFileSync(
    config,
    JSON.stringify({
      extends: path.join(root, "tsconfig.base.json"),
      compilerOptions: { noEmit: true },
      files: [file],
    }),
  );
  let found: Map<number, string> | undefined;
  const compile = () => {
    if (found === undefined) {
      const result = spawnSync(
        process.execPath,
        [path.join(root, "node_modules/typescript/bin/tsc"), "-p", config, "--pretty", "false"],
        { encoding: "utf8", cwd: work },
      );
      found = diagnostics(`${result.stdout}${result.stderr}`, file);
    }
    return found;
  };

  cases.forEach((c, i) => {
    it(c.name, () => {
      const message = compile().get(lines + i);
      expect(message, `no compile error for: ${c.code}`).toBeDefined();
      for (const part of c.says) expect(message).toContain(part);
      // One signature per call: a mistake is never reported as a dump of every overload.
      expect(message).not.toContain("No overload matches this call");
    }, 180_000);
  });

  it("the prelude and the correct run compile: every error is one of the mistakes above", () => {
    const lineNumbers = [...compile().keys()].sort((a, b) => a - b);
    expect(lineNumbers).toEqual(cases.map((_, i) => lines + i));
  }, 180_000);
});
