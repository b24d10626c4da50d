import { defineConfig } from "vitest/config";

/**
 * Shared vitest settings: tests resolve workspace packages from source through the
 * `@graph/source` export condition (for both client and SSR resolution), and every
 * package writes a JSON report that `tools/scripts/run.mjs test` sums up.
 */
export function vitestConfig(options: { testTimeout?: number; fileParallelism?: boolean; typecheck?: boolean } = {}) {
  return defineConfig({
    resolve: { conditions: ["@graph/source"] },
    ssr: { resolve: { conditions: ["@graph/source"] } },
    test: {
      include: ["test/**/*.test.ts"],
      testTimeout: options.testTimeout ?? 20_000,
      hookTimeout: 60_000,
      fileParallelism: options.fileParallelism ?? true,
      // Type tests (`expectTypeOf`, `@ts-expect-error`) in `test/**/*.test-d.ts`, run by tsc and counted as tests.
      typecheck: { enabled: options.typecheck ?? false, include: ["test/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
      reporters: ["default", "json"],
      outputFile: { json: "reports/vitest.json" },
    },
  });
}
