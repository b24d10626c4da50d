import type { MatchCursor, Matcher } from "../Matcher.js";
import type { SelectOptions, TreeAdapter } from "../Tree.js";
import { compileMatcher } from "./matcher.js";

/** Sets an own data property, even for the key `__proto__` (where `=` would change the prototype). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** `record`, re-homed on `source`'s prototype when that is `null` (a prototype-less record stays one). */
function likeSource(source: object, record: Record<string, unknown>): Record<string, unknown> {
  if (Object.getPrototypeOf(source) !== null) return record;
  return Object.assign(Object.create(null) as Record<string, unknown>, record);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

export const plainObjectAdapter: TreeAdapter = Object.freeze({
  children(value: unknown): Readonly<Record<string, unknown>> | undefined {
    return isPlainObject(value) ? value : undefined;
  },
  rebuild(original: unknown, prunedChildren: Record<string, unknown>): unknown {
    return likeSource(original as object, prunedChildren);
  },
});

export const runResultAdapter: TreeAdapter = Object.freeze({
  children(value: unknown): Readonly<Record<string, unknown>> | undefined {
    if (typeof value !== "object" || value === null) return undefined;
    const candidate = value as { readonly status?: unknown; readonly values?: unknown };
    if (typeof candidate.status !== "string") return undefined;
    const values = candidate.values;
    if (typeof values !== "object" || values === null || Array.isArray(values)) return undefined;
    return values as Readonly<Record<string, unknown>>;
  },
  rebuild(original: unknown, prunedChildren: Record<string, unknown>): unknown {
    const source = original as { readonly values: object };
    const descriptors = Object.getOwnPropertyDescriptors(original);
    const copy: object = Object.create(Object.getPrototypeOf(original) as object | null);
    Object.defineProperties(copy, {
      ...descriptors,
      values: {
        value: likeSource(source.values, prunedChildren),
        enumerable: descriptors["values"]?.enumerable ?? true,
        writable: descriptors["values"]?.writable ?? true,
        configurable: true,
      },
    });
    return Object.isFrozen(original) ? Object.freeze(copy) : copy;
  },
});

interface Walk {
  readonly adapter: TreeAdapter;
  /** Nested nodes on the current path, to report a cycle instead of recursing forever. */
  readonly ancestors: Set<object>;
  readonly path: string[];
}

/** The selected part of `children`, or `undefined` when nothing in it is selected. */
function selectChildren(
  children: Readonly<Record<string, unknown>>,
  cursor: MatchCursor,
  walk: Walk,
): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(children)) {
    const child = cursor.child(key);
    let value: unknown;
    if (child.matched) {
      value = children[key]; // selected exactly: keep it whole
    } else if (child.canDescend) {
      const original = children[key];
      const nested = walk.adapter.children(original);
      if (nested === undefined) continue; // a leaf cannot hold the deeper match
      const node = original as object;
      walk.path.push(key);
      if (walk.ancestors.has(node)) {
        throw new TypeError(
          `selectTree: the tree contains a cycle at "${walk.path.join("/")}"; results must be acyclic trees.`,
        );
      }
      walk.ancestors.add(node);
      const pruned = selectChildren(nested, child, walk);
      walk.ancestors.delete(node);
      walk.path.pop();
      if (pruned === undefined) continue; // nothing below matched: omit the node
      value = walk.adapter.rebuild(original, pruned);
    } else {
      continue;
    }
    out ??= {};
    setOwn(out, key, value);
  }
  return out;
}

export function selectFromTree<T>(tree: T, patterns: string | readonly string[] | Matcher, options?: SelectOptions): T {
  const matcher =
    typeof patterns === "string" || Array.isArray(patterns) ? compileMatcher(patterns) : (patterns as Matcher);
  if (typeof tree !== "object" || tree === null) {
    throw new TypeError(`selectTree: expected the tree to be an object, got ${tree === null ? "null" : typeof tree}.`);
  }
  const adapter = options?.adapter ?? plainObjectAdapter;
  const adapted = adapter.children(tree);
  // The root is always a tree: if the adapter does not see one, its own enumerable properties are the children.
  const children = adapted ?? (tree as Readonly<Record<string, unknown>>);
  const walk: Walk = { adapter, ancestors: new Set([tree]), path: [] };
  const pruned = selectChildren(children, matcher.cursor(), walk) ?? {};
  return (adapted === undefined ? likeSource(tree, pruned) : adapter.rebuild(tree, pruned)) as T;
}
