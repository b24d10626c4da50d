import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

const packageDir = fileURLToPath(new URL("../..", import.meta.url));
const cli = fileURLToPath(new URL("../../src/cli.ts", import.meta.url));
const startV1 = fileURLToPath(new URL("../fixtures/startV1.ts", import.meta.url));

/** Node options that run the TypeScript sources (the workspace packages through their `@graph/source` export). */
const SOURCE = ["--conditions=@graph/source", "--import", "tsx"];

export interface Exit {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function node(args: readonly string[]): Promise<Exit> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...SOURCE, ...args], { cwd: packageDir }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : undefined;
      if (code === undefined) reject(error);
      else resolve({ code, stdout, stderr });
    });
  });
}

/** Runs `graph-upgrade` as its own process. */
export const runCli = (args: readonly string[]): Promise<Exit> => node([cli, ...args]);

/** Creates the v1 workflows of the CLI tests in their own process (see fixtures/startV1.ts). */
export async function createV1Workflows(store: string, extra: readonly string[] = []): Promise<void> {
  const exit = await node([startV1, store, ...extra]);
  if (exit.code !== 0) throw new Error(`startV1 failed (${exit.code}): ${exit.stderr}`);
}
