// The README's Performance table is generated from results.json; these pin the generator, the merge of a partial
// run, the new target kinds, and that the committed README and results.json agree.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  mergeRows,
  README_END,
  README_START,
  type ResultsFile,
  renderReadmeTable,
  replaceRegion,
} from "../src/lib/readme.js";
import { type Row, row } from "../src/lib/results.js";

const bench = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

const chainRow = row({
  id: "peers-chain-10",
  workload: "peers",
  label: "chain of 10 async nodes, steady state",
  unit: "µs/run",
  ours: { value: 11.24, cpu: 10.1 },
  floor: { value: 3.5 },
  langgraph: { value: 2778 },
  peers: { mastra: { value: 881 }, dbos: { skipped: "durable rows only" } },
  targets: [{ kind: "peerSpeedupMin", peer: "mastra", threshold: 10 }],
});

const coldRow = row({
  id: "cold-start",
  workload: "cold",
  label: "cold start",
  unit: "ms",
  ours: { value: 164 },
  floor: { value: 0.04 },
  langgraph: { value: 261, estimated: true },
  targets: [{ kind: "max", threshold: 100, description: "≤ 100 ms" }],
  measuredAt: "2026-11-24T22:02:51.260Z",
});

const infoRow = row({
  id: "queue-x",
  workload: "queue",
  label: "not a headline row",
  unit: "ms",
  ours: { value: 1 },
  floor: { value: 1 },
  langgraph: { skipped: "n/a" },
});

const results: ResultsFile = {
  generatedAt: "2026-11-26T03:00:00.000Z",
  machine: { cpu: "AMD EPYC", cores: 2, node: "v20.20.2" },
  rows: [chainRow, infoRow, coldRow],
};

describe("renderReadmeTable", () => {
  it("shows the headline rows in their fixed order, every peer column, and each target's verdict", () => {
    const lines = renderReadmeTable(results).split("\n");
    expect(lines[0]).toContain("(2026-11-26; AMD EPYC × 2 cores, Node v20.20.2).");
    expect(lines.slice(2)).toEqual([
      "| workload (async nodes) | @graph | hand-written floor | LangGraph.js | Mastra | DBOS | target | measured |",
      "| --- | --- | --- | --- | --- | --- | --- | --- |",
      "| cold start | 164 ms | 0.0400 ms | ~261 ms | — | — | ≤ 100 ms: **missed** | 2026-11-24 |",
      "| chain of 10 async nodes, steady state | 11.2 µs/run (CPU 10.1) | 3.50 µs/run | 2,778 µs/run | 881 µs/run | — | ≥ 10× Mastra: met | 2026-11-26 |",
    ]);
  });
});

describe("replaceRegion", () => {
  const text = `# Title\n\n## Performance\n\n${README_START}\nold table\n${README_END}\n\n## Next\n`;

  it("replaces only what is between the markers, and is stable when run twice", () => {
    const once = replaceRegion(text, "new table");
    expect(once).toBe(`# Title\n\n## Performance\n\n${README_START}\nnew table\n${README_END}\n\n## Next\n`);
    expect(replaceRegion(once, "new table")).toBe(once);
  });

  it("refuses a README without the markers and says how to fix it", () => {
    expect(() => replaceRegion("# Title\n", "x")).toThrow(/no generated Performance region[\s\S]*How to fix/);
  });
});

describe("mergeRows (a partial --only run)", () => {
  const r = (id: string, workload: string): Row =>
    row({ id, workload, label: id, unit: "ms", ours: { value: 1 }, floor: { value: 1 }, langgraph: { value: 1 } });

  it("replaces the re-run workloads' rows where they were, keeps the others, appends new workloads", () => {
    const previous = [r("a1", "a"), r("b1", "b"), r("b2", "b"), r("c1", "c")];
    const fresh = [r("b3", "b"), r("d1", "d")];
    expect(mergeRows(previous, fresh, ["b", "d"]).map((x) => x.id)).toEqual(["a1", "b3", "c1", "d1"]);
  });
});

describe("target kinds", () => {
  it("floorRatioMax judges ours / floor; peerSpeedupMin judges the peer / ours, or n/a when the peer was not run", () => {
    const judged = row({
      id: "x",
      workload: "durable",
      label: "x",
      unit: "ms/run",
      ours: { value: 2 },
      floor: { value: 1 },
      langgraph: { skipped: "n/a" },
      peers: { dbos: { value: 5 } },
      targets: [
        { kind: "floorRatioMax", threshold: 1.3 },
        { kind: "peerSpeedupMin", peer: "dbos", threshold: 2 },
        { kind: "peerSpeedupMin", peer: "mastra", threshold: 5 },
      ],
    });
    expect(judged.targets.map((t) => [t.description, t.actual, t.met])).toEqual([
      ["≤ 1.3× the floor", 2, false],
      ["≥ 2× DBOS", 2.5, true],
      ["≥ 5× Mastra", null, null],
    ]);
  });

  it("floorRatioMin judges ours / floor from below (rows where more is better, runs/s)", () => {
    const judge = (ours: number) =>
      row({
        id: "pool",
        workload: "pool",
        label: "pool",
        unit: "runs/s",
        ours: { value: ours },
        floor: { value: 200 },
        langgraph: { skipped: "n/a" },
        targets: [{ kind: "floorRatioMin", threshold: 0.6 }],
      }).targets.map((t) => [t.description, t.actual, t.met]);
    expect(judge(120)).toEqual([["≥ 0.6× the floor", 0.6, true]]);
    expect(judge(100)).toEqual([["≥ 0.6× the floor", 0.5, false]]);
  });
});

describe("the committed results.json and README.md", () => {
  const file = JSON.parse(fs.readFileSync(path.join(bench, "results.json"), "utf8")) as ResultsFile;

  it("every row has an id, a workload, a unit, three contender cells and judged targets", () => {
    expect(file.rows.length).toBeGreaterThan(0);
    for (const r of file.rows) {
      expect(typeof r.id).toBe("string");
      expect(typeof r.workload).toBe("string");
      expect(typeof r.unit).toBe("string");
      for (const c of [r.ours, r.floor, r.langgraph]) expect("value" in c || "skipped" in c).toBe(true);
      for (const t of r.targets) expect([true, false, null]).toContain(t.met);
    }
    expect(new Set(file.rows.map((r) => r.id)).size).toBe(file.rows.length);
  });

  it("the README's Performance table is exactly what the bench generates from results.json", () => {
    const readme = fs.readFileSync(path.resolve(bench, "../../README.md"), "utf8");
    expect(readme).toBe(replaceRegion(readme, renderReadmeTable(file)));
  });
});
