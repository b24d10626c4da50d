import fc from "fast-check";

// The static loop-needs rule of src/types/loops.ts, written out in plain code, and random graphs to check it on: the
// property tests compare it with what the built graph requires (the rule never demands more) and with what the
// compiler infers (the types implement exactly this rule).

const VALUES = ["a", "b", "c", "d", "e", "f", "g"] as const;

export interface NodeSpec {
  readonly name: string;
  /** Named in its options (a literal name the checker can read), or by its function (a name it can't). */
  readonly literalName: boolean;
  readonly inputs: readonly string[];
  readonly defaults: readonly string[];
  readonly outputs: readonly string[];
}

export interface GraphSpec {
  readonly nodes: readonly NodeSpec[];
  /** A gate reading one value and targeting nodes (by index) or END. */
  readonly gate: { readonly reads: string; readonly targets: readonly (number | "END")[] } | undefined;
  /** Index of the node configured as `entrypoint`. */
  readonly entry: number | undefined;
}

/**
 * Up to six nodes; node i produces value i (so no value has two producers, which only exclusive gate branches allow)
 * and sometimes a second one, and reads one to three values, a default for some. Values no node produces are inputs.
 */
export const graphSpec: fc.Arbitrary<GraphSpec> = fc.integer({ min: 1, max: 6 }).chain((count) =>
  fc.record({
    nodes: fc.tuple(
      ...Array.from({ length: count }, (_, i) =>
        fc
          .tuple(fc.subarray([...VALUES], { minLength: 1, maxLength: 3 }), fc.boolean(), fc.boolean())
          .chain(([inputs, second, literalName]) =>
            fc.record({
              name: fc.constant(`n${i}`),
              literalName: fc.constant(literalName),
              inputs: fc.constant(inputs),
              defaults: fc.subarray(inputs, { maxLength: 1 }),
              outputs: fc.constant(second && i === 0 ? [VALUES[0], VALUES[6]] : [VALUES[i]!]),
            }),
          ),
      ),
    ),
    gate: fc.option(
      fc.record({
        reads: fc.constantFrom(...VALUES),
        targets: fc.uniqueArray(fc.oneof(fc.nat(count - 1), fc.constant("END" as const)), {
          minLength: 1,
          maxLength: 2,
        }),
      }),
      { nil: undefined },
    ),
    entry: fc.option(fc.nat(count - 1), { nil: undefined }),
  }),
);

/** What the rule says a fresh run needs: values it must pass, and values of which it must pass one. */
export interface LoopNeeds {
  readonly required: readonly string[];
  readonly choice: readonly string[];
}

const NONE: LoopNeeds = { required: [], choice: [] };

interface RuleNode {
  readonly name: string;
  readonly literalName: boolean;
  readonly needs: readonly string[];
  readonly outputs: readonly string[];
}

/** The nodes as the types see them: a gate is a node with no output. */
function ruleNodes(spec: GraphSpec): RuleNode[] {
  const nodes: RuleNode[] = spec.nodes.map((n) => ({
    name: n.name,
    literalName: n.literalName,
    needs: n.inputs.filter((i) => !n.defaults.includes(i)),
    outputs: n.outputs,
  }));
  if (spec.gate !== undefined) nodes.push({ name: "gate", literalName: true, needs: [spec.gate.reads], outputs: [] });
  return nodes;
}

/** Values every producer reads back without a default (the accumulator rule, `RequiredSeeds` in merge.ts). */
export function accumulatorSeeds(spec: GraphSpec): string[] {
  return VALUES.filter((v) => {
    const producers = spec.nodes.filter((n) => n.outputs.includes(v));
    return producers.length > 0 && producers.every((p) => p.inputs.includes(v) && !p.defaults.includes(v));
  });
}

/** The loop-needs rule (src/types/loops.ts). */
export function loopNeeds(spec: GraphSpec): LoopNeeds {
  const nodes = ruleNodes(spec);
  const produced = new Set(nodes.flatMap((n) => n.outputs));
  const known = new Set<string>(accumulatorSeeds(spec));
  for (const n of spec.nodes) for (const i of n.inputs) if (!produced.has(i)) known.add(i);
  if (spec.gate !== undefined && !produced.has(spec.gate.reads)) known.add(spec.gate.reads);
  const ready = (n: RuleNode) => n.needs.every((v) => known.has(v));
  // One walk in list order, then walks over what is left until nothing more runs.
  let left: RuleNode[] = [];
  for (const n of nodes) {
    if (ready(n)) for (const o of n.outputs) known.add(o);
    else left.push(n);
  }
  for (;;) {
    const now = left.filter(ready);
    if (now.length === 0) break;
    for (const n of now) for (const o of n.outputs) known.add(o);
    left = left.filter((n) => !now.includes(n));
  }
  if (left.length === 0) return NONE;
  const waits = new Map(left.map((n) => [n, n.needs.filter((v) => !known.has(v))]));
  const waited = [...new Set([...waits.values()].flat())];
  if (waited.some((v) => left.filter((n) => n.outputs.includes(v)).length > 1)) return NONE;
  const reach = (start: readonly string[]) => {
    const made = new Set<string>();
    for (let moved = true; moved; ) {
      moved = false;
      for (const n of left) {
        if (!waits.get(n)!.some((v) => start.includes(v) || made.has(v))) continue;
        for (const o of n.outputs) if (!made.has(o) && made.add(o)) moved = true;
      }
    }
    return made;
  };
  const entry = spec.entry === undefined ? undefined : spec.nodes[spec.entry]!;
  const entrySeeds = new Set<string>();
  for (const n of left) {
    if (entry === undefined || !entry.literalName || n.name !== entry.name) continue;
    const made = reach(n.outputs);
    for (const v of waits.get(n)!) if (made.has(v)) entrySeeds.add(v);
  }
  if (entrySeeds.size > 0) return { required: [...entrySeeds].sort(), choice: [] };
  const choice = waited.filter((v) => reach([v]).has(v)).sort();
  return choice.length === 1 ? { required: choice, choice: [] } : { required: [], choice };
}
