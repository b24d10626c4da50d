// The checker itself: a broken example is reported with its line and the compiler's message (so it fails the run),
// fragments get their free names declared, and the stubbed third-party packages type-check.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkExamples } from "../src/check.js";
import type { Example } from "../src/examples.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");
// Not `.generated`: examples.test.ts clears that folder and may run at the same time.
const dir = path.resolve(here, "../.generated-self-test");

const example = (where: string, code: string, packageName?: string): Example => ({ where, packageName, code });

describe("checkExamples", () => {
  const [good, wrongType, missingExport, fragment, stubbed, stubMisuse] = checkExamples(
    root,
    [
      example(
        "good.md:1",
        'import { Graph, node } from "@graph/core";\nconst a = node({ output: "y" }, ({ x }: { x: number }) => x + 1);\nnew Graph([a]);',
      ),
      example(
        "wrong-type.md:1",
        'import { PostgresCheckpointer } from "@graph/checkpoint-postgres";\nnew PostgresCheckpointer({ connectionString: process.env.DATABASE_URL });',
      ),
      example("missing-export.md:1", 'import { SqliteCheckpointer } from "@graph/checkpoint-conformance";'),
      // A fragment: `graph` comes from the prose (declared as any), `node` from the documented package.
      example("fragment.md:1", 'graph.toMermaid();\nnode({ output: "z" }, () => 1);', "@graph/core"),
      example(
        "stubbed.md:1",
        'import { resourceFromAttributes } from "@opentelemetry/resources";\nimport { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";\nnew NodeTracerProvider({ resource: resourceFromAttributes({ "service.name": "x" }) }).register();',
      ),
      example(
        "stub-misuse.md:1",
        'import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";\nnew OTLPTraceExporter({ url: 4318 });',
      ),
    ],
    dir,
  );

  it("passes a correct example", () => expect(good!.errors).toEqual([]));

  it("reports a value of the wrong type with the example's own line", () => {
    expect(wrongType!.errors).toHaveLength(1);
    expect(wrongType!.errors[0]).toMatch(/^line 2: Argument of type '\{ connectionString: string \| undefined; \}'/);
  });

  it("reports an import of a name the package does not export", () => {
    expect(missingExport!.errors).toEqual([
      "line 1: Module '\"@graph/checkpoint-conformance\"' has no exported member 'SqliteCheckpointer'.",
    ]);
  });

  it("declares a fragment's free names and imports its package's exports", () => {
    expect(fragment!.errors).toEqual([]);
  });

  it("type-checks the third-party packages declared in stubs/", () => {
    expect(stubbed!.errors).toEqual([]);
    expect(stubMisuse!.errors).toHaveLength(1);
    expect(stubMisuse!.errors[0]).toContain("Type 'number' is not assignable to type 'string'");
  });
});
