import path from "node:path";
import { pathToFileURL } from "node:url";
import { type Graph, isGraph } from "@graph/core";
import { UsageError } from "./openStore.js";

/** Imports the module `--graph` names and takes its `exportName` export (default: `default`, then `graph`). */
export async function loadGraph(file: string, exportName: string | undefined): Promise<Graph> {
  const url = pathToFileURL(path.resolve(file)).href;
  let module: Record<string, unknown>;
  try {
    module = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_MODULE_NOT_FOUND" && String(error).includes(url))
      throw new UsageError(`--graph ${JSON.stringify(file)}: no such module (${path.resolve(file)}).`);
    throw error;
  }
  const names = exportName === undefined ? ["default", "graph"] : [exportName];
  for (const name of names) if (isGraph(module[name])) return module[name] as Graph;
  const found = Object.keys(module).filter((k) => isGraph(module[k]));
  throw new UsageError(
    `--graph ${JSON.stringify(file)} has no Graph export named ${names.map((n) => `'${n}'`).join(" or ")}` +
      (found.length > 0
        ? `; it exports graphs as ${found.map((k) => `'${k}'`).join(", ")}: pass --export <name>.`
        : "."),
  );
}
