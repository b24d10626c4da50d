/**
 * Typed migrations: what turns a workflow stored by an older graph version into one the current graph can resume.
 *
 * @module
 */
import type { Graph, OutputsOf } from "@graph/core";
import { checkUpgradable } from "./internal/upgradeOptions.js";

/**
 * The pause mapping value that ends a pause without an answer: the workflow goes on as if the interrupt were not
 * there (the node that was paused gets a `stopped` step).
 *
 * @example
 * ```ts
 * import { drop, type Migration } from "@graph/upgrade";
 * const m: Migration = { from: "v1", pause: { approve: drop } };
 * ```
 */
export const drop: unique symbol = Symbol.for("@graph/upgrade/drop");

/** Value names of a graph (its outputs), or any string for an untyped graph. */
type ValueName<Out> = [keyof Out] extends [never] ? string : Extract<keyof Out, string>;

/**
 * One migration, from a stored graph version to the graph it is registered on. Applied on resume, once, as one
 * `.upgrade` step (all or nothing): `rename` first, then `transform` (keyed by the new name), then `pause`.
 *
 * @example
 * ```ts
 * import { drop, type Migration } from "@graph/upgrade";
 * const m: Migration = {
 *   from: "v1",                                   // a version label, or the old graph's definitionHash
 *   rename: { draft: "body" },                    // stored 'draft' becomes 'body'
 *   transform: { body: (old) => String(old).trim() },
 *   pause: { approve: "review", notify: drop },   // the pending pause moves to 'review'; one at 'notify' ends
 * };
 * ```
 */
export interface Migration<Out = Record<string, unknown>> {
  /** The stored workflow's graph: its `definitionHash`, or the label it was given with `upgradable(…, { label })`. */
  readonly from: string;
  /**
   * Stored value name → the new graph's name for it. Steps are never rewritten: the old name stays in the stored
   * state (and so in results) as history; nothing of the new graph reads it.
   */
  readonly rename?: Readonly<Record<string, ValueName<Out>>>;
  /** New value name → a function of the stored value (after `rename`) returning the value the new graph expects. */
  readonly transform?: { readonly [K in ValueName<Out>]?: (old: unknown) => K extends keyof Out ? Out[K] : unknown };
  /** Interrupt the workflow is paused at → the new graph's interrupt that takes the pause over, or {@link drop}. */
  readonly pause?: Readonly<Record<string, string | typeof drop>>;
}

/** What {@link upgradable} registers for a graph. */
export interface UpgradeOptions<Out = Record<string, unknown>> {
  /** A version label stored with the graph's structure; later migrations can name it as their `from`. */
  readonly label?: string;
  readonly migrations?: readonly Migration<Out>[];
}

const registry = new WeakMap<Graph, UpgradeOptions<never>>();

/**
 * Registers a version label and migrations for `graph` and returns it (graphs are immutable, so the registration
 * rides on the object). A wrong argument (not a graph, an unknown option, a label that is not a string, migrations
 * that are not a list of migrations) is a GraphConfigError naming the option. `upgrades()` on a Runner, `upgrade-check` and `checkCompatibility` read it.
 *
 * @example
 * ```ts
 * import { Graph, node } from "@graph/core";
 * import { upgradable } from "@graph/upgrade";
 *
 * const write = node({ output: "body" }, function write({ outline }: { outline: string }) {
 *   return `${outline}!`;
 * });
 * export const v2 = upgradable(new Graph([write], { name: "post" }), {
 *   label: "v2",
 *   migrations: [{ from: "v1", rename: { draft: "body" } }],
 * });
 * ```
 */
export function upgradable<G extends Graph>(graph: G, options: UpgradeOptions<OutputsOf<G>>): G {
  checkUpgradable(graph, options);
  registry.set(graph, options as UpgradeOptions<never>);
  return graph;
}

/** The label and migrations registered for `graph` (none: `{}`). */
export function upgradeOptionsOf(graph: Graph): UpgradeOptions {
  return (registry.get(graph) as UpgradeOptions | undefined) ?? {};
}
