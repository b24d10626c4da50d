/**
 * Storage conformance, area "structures": graph structures stored by definition hash (`putGraphStructure`,
 * `getGraphStructure`), what `@graph/upgrade` compares a stored workflow's graph with a new one by.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { assertCheckpointError, rejection } from "../fixtures.js";
import type { StorageContext } from "./helpers.js";

const hash = () => randomBytes(32).toString("hex");

/** Registers the "structures" tests. */
export function describeStructures({ run }: StorageContext): void {
  describe("graph structures", () => {
    it("stores a structure once per hash: the first text wins, unknown hashes read undefined", async () => {
      await run(async (checkpointer) => {
        expect(typeof checkpointer.putGraphStructure).toBe("function");
        const h = hash();
        expect(await checkpointer.getGraphStructure?.(h)).toBeUndefined();
        const text = JSON.stringify({ version: 1, nodes: [{ name: "é→✓", inputs: ["a"] }] });
        await checkpointer.putGraphStructure?.(h, text);
        await checkpointer.putGraphStructure?.(h, JSON.stringify({ version: 2 }));
        expect(await checkpointer.getGraphStructure?.(h)).toBe(text);
        const other = hash();
        await Promise.all([
          checkpointer.putGraphStructure?.(other, '{"n":1}'),
          checkpointer.putGraphStructure?.(other, '{"n":1}'),
        ]);
        expect(await checkpointer.getGraphStructure?.(other)).toBe('{"n":1}');
      });
    });

    it("refuses a hash that is not a sha256 digest and a text that is not a JSON object, writing nothing", async () => {
      await run(async (checkpointer) => {
        const badHash = await rejection(checkpointer.putGraphStructure!("not-a-hash", "{}"));
        assertCheckpointError(badHash);
        expect(badHash.message).toContain("graph definition hash");
        const h = hash();
        const badText = await rejection(checkpointer.putGraphStructure!(h, "[1,2]"));
        assertCheckpointError(badText);
        expect(badText.message).toContain("JSON text of an object");
        expect(await checkpointer.getGraphStructure?.(h)).toBeUndefined();
      });
    });
  });
}
