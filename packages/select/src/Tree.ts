/**
 * Selecting part of a result tree with patterns, and the adapters that say what counts as a nested tree.
 *
 * @module
 */

import {
  plainObjectAdapter as plainObjectAdapterImpl,
  runResultAdapter as runResultAdapterImpl,
  selectFromTree,
} from "./internal/tree.js";
import type { Matcher } from "./Matcher.js";

/**
 * Tells `selectTree` which values are nested trees and how to build a pruned copy of one.
 *
 * `children(value)` returns the nested tree's children (name → value), or `undefined` when `value` is a leaf.
 * `rebuild(original, prunedChildren)` returns the pruned copy of a nested node; `prunedChildren` is a fresh
 * object holding only the selected children, in their original order, which the adapter may keep as-is.
 * `rebuild` is only called for nodes that keep at least one child; nodes selected whole are never rebuilt.
 *
 * @example
 * ```ts
 * import { selectTree, type TreeAdapter } from "@graph/select";
 *
 * // Treat Maps as nested trees, and rebuild them as Maps.
 * const mapAdapter: TreeAdapter = {
 *   children: (value) => (value instanceof Map ? Object.fromEntries(value) : undefined),
 *   rebuild: (_original, prunedChildren) => new Map(Object.entries(prunedChildren)),
 * };
 * const tree = { rag: new Map<string, unknown>([["docs", ["d1"]], ["scores", [0.9]]]) };
 * selectTree(tree, "rag/docs", { adapter: mapAdapter }); // { rag: Map { "docs" => ["d1"] } }
 * ```
 */
export interface TreeAdapter {
  /** The children of a nested tree, or `undefined` for a leaf. */
  children(value: unknown): Readonly<Record<string, unknown>> | undefined;
  /** The pruned copy of the nested node `original`, holding exactly `prunedChildren`. */
  rebuild(original: unknown, prunedChildren: Record<string, unknown>): unknown;
}

/**
 * Options for {@link selectTree}.
 *
 * @example
 * ```ts
 * import { runResultAdapter, type SelectOptions } from "@graph/select";
 *
 * const options: SelectOptions = { adapter: runResultAdapter };
 * ```
 */
export interface SelectOptions {
  /** What counts as a nested tree; default {@link plainObjectAdapter}. */
  readonly adapter?: TreeAdapter;
}

/**
 * The default adapter: plain objects (prototype `Object.prototype` or `null`) are nested trees, whose children
 * are their own enumerable string keys; everything else — arrays, `Date`s, `Map`s, class instances, primitives —
 * is a leaf. A pruned copy keeps the original's prototype (`null` or `Object.prototype`).
 *
 * @example
 * ```ts
 * import { plainObjectAdapter, selectTree } from "@graph/select";
 *
 * selectTree({ a: { b: 1, c: 2 }, d: [1, 2] }, ["a/b", "d/*"], { adapter: plainObjectAdapter });
 * // { a: { b: 1 } } — arrays are leaves, so "d/*" selects nothing
 * ```
 */
export const plainObjectAdapter: TreeAdapter = plainObjectAdapterImpl;

/**
 * An adapter for nested `RunResult`s: any object with a `status` string and a `values` record (a non-array
 * object) is a nested tree whose children are its `values`. Everything else, plain objects included, is a leaf,
 * so an output value that happens to be an object is never pruned.
 *
 * A pruned copy is `Object.create(Object.getPrototypeOf(original))` with every own property of the original
 * copied (by descriptor, so getters and non-enumerable properties survive) and `values` replaced by an own data
 * property holding the pruned record. Methods on the prototype that read `this.values` (`get(path)`, `toJSON()`)
 * therefore see the pruned values; state kept in `#private` fields is **not** copied, so a class that needs it
 * should provide its own adapter. A frozen original gives a frozen copy.
 *
 * @example
 * ```ts
 * import { runResultAdapter, selectTree } from "@graph/select";
 *
 * const rag = { status: "completed", values: { docs: ["d1"], scores: [0.9] } };
 * const result = { status: "completed", runId: "r1", values: { answer: 42, rag } };
 * selectTree(result, ["rag/docs"], { adapter: runResultAdapter });
 * // { status: "completed", runId: "r1", values: { rag: { status: "completed", values: { docs: ["d1"] } } } }
 * ```
 */
export const runResultAdapter: TreeAdapter = runResultAdapterImpl;

/**
 * A pruned copy of `tree` holding only what `patterns` select, keeping the nesting and the original key order.
 *
 * - A path that a pattern matches exactly is kept **whole** (the same value, not cloned, nothing pruned below).
 * - A nested tree with only some matching descendants is rebuilt (through the adapter) with just those parts.
 * - A nested tree with nothing matching is left out, as is every unmatched leaf.
 *
 * The root is always treated as a tree and always copied, never returned as-is: when the adapter recognises it
 * (a RunResult-like root with {@link runResultAdapter}) it is rebuilt by the adapter; otherwise its own
 * enumerable properties are its children and the copy is a plain object. Patterns are matched against paths
 * *below* the root, so pass a RunResult with `{ adapter: runResultAdapter }`, or its `values` with the default
 * adapter. The return type is the input type for convenience; remember that unselected keys are absent.
 *
 * Pass a {@link Matcher} from {@link compile} to validate once and select many times.
 *
 * The walk uses an explicit stack, so a tree of any depth is fine.
 *
 * @throws {@link SelectPatternError} when a pattern is invalid (or `patterns` is neither patterns nor a Matcher);
 * {@link SelectInputError} when `tree` is not an object (`reason: "TreeNotAnObject"`), contains a cycle along a
 * path the patterns make it walk (`"CyclicTree"`, with `path`), or the options, adapter or matcher are not usable.
 *
 * @example
 * ```ts
 * import { selectTree } from "@graph/select";
 *
 * const tree = {
 *   answer: "42",
 *   rag: { docs: ["d1", "d2"], embedding: [0.1, 0.2], inner: { embedding: [0.3] } },
 *   log: "…",
 * };
 * selectTree(tree, ["answer", "rag/docs"]); // { answer: "42", rag: { docs: ["d1", "d2"] } }
 * selectTree(tree, "**\/embedding"); // { rag: { embedding: [0.1, 0.2], inner: { embedding: [0.3] } } }
 * selectTree(tree, "rag/*"); // { rag: { docs: [...], embedding: [...], inner: { embedding: [0.3] } } }
 * ```
 */
export function selectTree<T>(tree: T, patterns: string | readonly string[] | Matcher, options?: SelectOptions): T {
  return selectFromTree(tree, patterns, options);
}
