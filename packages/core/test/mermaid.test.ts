import { describe, expect, it } from "vitest";
import { END, Graph, ifElse, interrupt, node, route } from "../src/index.js";
import { fromSource } from "./helpers.js";

const fn = (name: string, inputs: string, output?: string | string[]) =>
  node(output === undefined ? {} : { output }, fromSource(`function ${name}({ ${inputs} }) { return 1; }`));

describe("toMermaid()", () => {
  it("renders a small graph line for line", () => {
    const embed = fn("embed", "text", "embedding");
    const decide = route(
      { targets: ["answer", END] },
      fromSource("function decide({ embedding }) { return 'answer'; }"),
    );
    const answer = fn("answer", "embedding, text", "reply");
    expect(new Graph([embed, decide, answer]).toMermaid().split("\n")).toEqual([
      "flowchart TD",
      '  n0["embed"]',
      '  n1{"decide"}',
      '  n2["answer"]',
      '  n0 -->|"embedding"| n1',
      '  n0 -->|"embedding"| n2',
      '  n1 -.->|"answer"| n2',
      '  n1 -.->|"END"| graph_END',
      "  graph_END((END))",
      '  in_0(["text"])',
      "  in_0 -.-> n0",
      "  in_0 -.-> n2",
    ]);
  });

  it("draws ifElse as a diamond with true/false edges, interrupts as parallelograms, ordering edges thick", () => {
    const check = ifElse(
      { whenTrue: END, whenFalse: "approval" },
      fromSource("function check({ draft }) { return true; }"),
    );
    const approval = interrupt({ name: "approval", input: "draft", response: "decision" });
    const warmup = fn("warmup", "", "cache");
    const write = fn("write", "topic", "draft");
    const lines = new Graph([warmup, write, check, approval], {
      edges: [
        ["warmup", "write"],
        ["write", "check"],
        ["write", "approval"],
      ],
    })
      .toMermaid()
      .split("\n");
    expect(lines).toContain('  n2{"check"}');
    expect(lines).toContain('  n3[/"approval"/]');
    expect(lines).toContain("  n0 ==> n1");
    expect(lines).toContain('  n1 -->|"draft"| n2');
    expect(lines).toContain('  n2 -.->|"false"| n3');
    expect(lines).toContain('  n2 -.->|"true"| graph_END');
    expect(lines).toContain("  graph_END((END))");
  });

  it("shows no END node when no gate can end", () => {
    expect(new Graph([fn("a", "x", "y")]).toMermaid()).not.toContain("END");
  });

  it("renders nested graphs as subgraphs with their own END", () => {
    const generate = fn("generate", "messages", "response");
    const accumulate = fn("accumulate", "messages, response", "messages");
    const done = route({ targets: ["generate", END] }, fromSource("function check_done({ messages }) { return END; }"));
    const chat = new Graph([generate, accumulate, done], { name: "chat" }).bind({ messages: [] });
    const post = fn("post", "response", "sent");
    const lines = new Graph([chat.asNode(), post]).toMermaid().split("\n");
    expect(lines.slice(0, 13)).toEqual([
      "flowchart TD",
      '  subgraph n0 ["chat"]',
      '    n0_n0["generate"]',
      '    n0_n1["accumulate"]',
      '    n0_n2{"check_done"}',
      '    n0_n1 -->|"messages"| n0_n0',
      '    n0_n1 -->|"messages"| n0_n1',
      '    n0_n0 -->|"response"| n0_n1',
      '    n0_n1 -->|"messages"| n0_n2',
      '    n0_n2 -.->|"generate"| n0_n0',
      '    n0_n2 -.->|"END"| n0_END',
      "    n0_END((END))",
      "  end",
    ]);
    expect(lines).toContain('  n1["post"]');
    expect(lines).not.toContain("  graph_END((END))");
  });

  it("titles a mapped subgraph with its mapped inputs", () => {
    const inner = new Graph([fn("retrieve", "query", "docs")], { name: "rag" });
    expect(new Graph([inner.asNode().mapOver("query")]).toMermaid()).toContain('subgraph n0 ["rag (map over query)"]');
  });

  it("escapes quotes in labels", () => {
    const quoted = node({ name: 'say "hi"', inputs: ["x"], output: "y" }, () => 1);
    expect(new Graph([quoted]).toMermaid()).toContain('  n0["say #quot;hi#quot;"]');
  });

  it("shows markup in names as text: every label character Mermaid or HTML could read is an entity code", () => {
    const xss = "<img src=x onerror=alert(1)>";
    const probe = node({ name: xss, inputs: ["<i>in<i>"], output: 'a"b' }, () => 1);
    const reader = node({ name: "a&amp;b #quot; `md` style:x", inputs: ['a"b'], output: "out" }, () => 1);
    const inner = new Graph([probe, reader], { name: "<svg onload=alert(2)>" });
    const text = new Graph([inner.asNode().mapOver("<i>in<i>")]).toMermaid();
    expect(text.split("\n")).toEqual([
      "flowchart TD",
      '  subgraph n0 ["#lt;svg onload=alert(2)#gt; (map over #lt;i#gt;in#lt;i#gt;)"]',
      '    n0_n0["#lt;img src=x onerror=alert(1)#gt;"]',
      '    n0_n1["a#amp;amp;b #35;quot; #96;md#96; style#58;x"]',
      '    n0_n0 -->|"a#quot;b"| n0_n1',
      "  end",
      '  in_0(["#lt;i#gt;in#lt;i#gt;"])',
      "  in_0 -.-> n0",
    ]);
    // No raw markup inside any label (the arrows' ">" are syntax), and quotes only as label delimiters.
    for (const [, inside] of text.matchAll(/"([^"]*)"/g)) expect(inside).not.toMatch(/[<>&`]/);
    for (const line of text.split("\n")) expect((line.match(/"/g) ?? []).length % 2).toBe(0);
  });

  it("escapes gate and interrupt labels and control-edge conditions the same way", () => {
    const gate = route({ name: "<g>", inputs: ["v"], targets: ["<t>", END] }, () => END);
    const target = node({ name: "<t>", inputs: ["v"], output: "w" }, () => 1);
    const ask = interrupt({ name: "<ask>", input: "w", response: "answer" });
    const lines = new Graph([gate, target, ask]).toMermaid().split("\n");
    expect(lines).toContain('  n0{"#lt;g#gt;"}');
    expect(lines).toContain('  n2[/"#lt;ask#gt;"/]');
    expect(lines).toContain('  n0 -.->|"#lt;t#gt;"| n1');
  });
});
