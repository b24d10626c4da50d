import { Graph, isGraphConfigError, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { drop, upgradable } from "../src/index.js";

const graph = () => new Graph([node({ name: "write", output: "body" }, ({ outline }: { outline: string }) => outline)]);

function refusal(call: () => unknown): { message: string; where: string | undefined } {
  try {
    call();
  } catch (error) {
    expect(isGraphConfigError(error)).toBe(true);
    return { message: (error as Error).message, where: (error as { where?: string }).where };
  }
  throw new Error("expected a GraphConfigError");
}

describe("upgradable(graph, options) checks its arguments", () => {
  it("refuses what is not a graph, options of the wrong shape and unknown keys, naming the option", () => {
    const cases: Array<[() => unknown, string, string]> = [
      [() => upgradable(null as never, {}), "graph", "the first argument must be a Graph, got null."],
      [() => upgradable(graph(), null as never), "options", "options must be an object, got null."],
      [
        () => upgradable(graph(), { migrations: "v1" } as never),
        "migrations",
        `option 'migrations' must be an array of migrations, got "v1".`,
      ],
      [
        () => upgradable(graph(), { label: 42 } as never),
        "label",
        "option 'label' must be a non-empty string, got number.",
      ],
      [() => upgradable(graph(), { lable: "v2" } as never), "lable", "unknown option 'lable' (did you mean 'label'?)."],
      [
        () => upgradable(graph(), { migrations: [{ from: 1 }] } as never),
        "migrations[0].from",
        "migrations[0].from must name the stored version (a label or a definitionHash), got number.",
      ],
      [
        () => upgradable(graph(), { migrations: [{ from: "v1", renames: {} }] } as never),
        "migrations[0].renames",
        "unknown option 'migrations[0].renames' (did you mean 'migrations[0].rename'?).",
      ],
      [
        () => upgradable(graph(), { migrations: [{ from: "v1", transform: { body: "x" } }] } as never),
        "migrations[0].transform.body",
        'migrations[0].transform.body must be a function of the stored value, got "x".',
      ],
    ];
    for (const [call, where, message] of cases) {
      const error = refusal(call);
      expect(error.message).toContain(`upgradable(graph, options): ${message}`);
      expect(error.message).toContain("How to fix:");
      expect(error.where).toBe(where);
    }
  });

  it("accepts a label and well-formed migrations", () => {
    const g = graph();
    expect(
      upgradable(g, {
        label: "v2",
        migrations: [{ from: "v1", rename: { draft: "body" }, transform: { body: String }, pause: { approve: drop } }],
      }),
    ).toBe(g);
  });
});
