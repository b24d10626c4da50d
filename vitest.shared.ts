import { defineConfig } from "vitest/config";

/**
 * Shared vitest settings: tests resolve workspace packages from source through the
 * `@graph/source` export condition (for both client and SSR resolution), and every
 * package writes a JSON report that `tools/scripts/run.mjs test` sums up.
 */
export function vitestConfig(
  options: { testTimeout?: number; fileParallelism?: boolean; typecheck?: boolean; maxWorkers?: number } = {},
) {
  return defineConfig({
    resolve: { conditions: ["@graph/source"] },
    ssr: { resolve: { conditions: ["@graph/source"] } },
    test: {
      include: ["test/**/*.test.ts"],
      testTimeout: options.testTimeout ?? 20_000,
      hookTimeout: 60_000,
      fileParallelism: options.fileParallelism ?? true,
      // Vitest's default is one worker per core but one; on 2 cores that runs a package's files one at a time.
      ...(options.maxWorkers === undefined ? {} : { maxWorkers: options.maxWorkers }),
      // Type tests (`expectTypeOf`, `@ts-expect-error`) in `test/**/*.test-d.ts`, run by tsc and counted as tests.
      typecheck: { enabled: options.typecheck ?? false, include: ["test/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
      reporters: ["default", "json"],
      outputFile: { json: "reports/vitest.json" },
    },
  });
}
