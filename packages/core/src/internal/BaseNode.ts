import { NODE_BRAND, NODE_PROTOCOL } from "../brands.js";
import { GraphConfigError, RenameError } from "../errors.js";
import { describeValue, isPlainRecord, showName } from "./describe.js";
import { quoteList } from "./suggest.js";

/** A public port name and the name the node's function (or inner graph) knows it by. */
export interface Port {
  readonly name: string;
  readonly original: string;
}

interface RenameEntry {
  readonly kind: "inputs" | "outputs";
  readonly from: string;
  readonly to: string;
}

export interface BaseSpec {
  readonly name: string;
  readonly inputs: readonly Port[];
  readonly outputs: readonly Port[];
  readonly history: readonly RenameEntry[];
}

export type NodeType = "function" | "route" | "branch" | "interrupt" | "graph";

const RESERVED_KEYS: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype).concat(["prototype"]));

/**
 * Characters a name may not hold: C0/C1 control characters (newline, tab, NUL…), the Unicode line and paragraph
 * separators, and lone surrogate halves. Such names can't be shown on one line (logs, the devtools graph) and a lone
 * surrogate does not survive UTF-8 storage, so the name read back from a checkpoint would not be the same name.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const UNSAFE_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|\p{Cs}/u;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|\p{Cs}/gu;

function codePoint(char: string): string {
  return `U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
}

/** Why a name is unusable, or undefined when it is fine. */
function nameProblem(name: string): string | undefined {
  if (name.length === 0) return "it is empty";
  if (name.includes("/")) return "it contains '/', which separates levels in result paths ('rag/docs')";
  if (name.includes(".")) return "it contains '.', which is reserved";
  if (name === "END") return "'END' is reserved for the END routing sentinel";
  // Values live in plain objects (run values, result.values, stored steps): these keys would hit the prototype.
  if (RESERVED_KEYS.has(name)) return `'${name}' is a reserved JavaScript object key (it would reach Object.prototype)`;
  const unsafe = UNSAFE_CHARACTER.exec(name);
  if (unsafe !== null) {
    const char = unsafe[0];
    const what = /\p{Cs}/u.test(char)
      ? `a lone surrogate (${codePoint(char)}), which does not survive UTF-8 storage`
      : `the control character ${codePoint(char)}${char === "\n" ? " (a newline)" : char === "\t" ? " (a tab)" : ""}, which can't be shown on one line`;
    return `it contains ${what} at position ${unsafe.index}`;
  }
  return undefined;
}

function suggestName(name: string): string {
  if (name === "END") return "end_step";
  if (RESERVED_KEYS.has(name)) return `${name.replace(/_/g, "")}_value`;
  return name.replace(/[/.]/g, "_").replace(UNSAFE_CHARACTERS, "_") || "my_name";
}

/**
 * Throws a {@link GraphConfigError} unless `name` is a usable name. `where` describes the owner (`node 'embed'`);
 * pass a function when building it needs the (not yet checked) name itself.
 */
export function checkName(kind: string, name: unknown, where: string | ((shown: string) => string)): void {
  const place = typeof where === "string" ? where : where(showName(name));
  if (typeof name !== "string") {
    throw new GraphConfigError(
      `Invalid ${kind} name in ${place}: expected a string, got ${describeValue(name)}.\n  How to fix: name it with a string of letters, digits, '_' or '-' (e.g. 'my_${kind}').`,
      { where: place },
    );
  }
  const problem = nameProblem(name);
  if (problem !== undefined) {
    throw new GraphConfigError(
      `Invalid ${kind} name ${showName(name)} in ${place}: ${problem}.\n  How to fix: use letters, digits, '_' or '-' (e.g. ${showName(suggestName(name))}).`,
      { where: place },
    );
  }
}

function checkPorts(nodeName: string, kind: "input" | "output", ports: readonly string[]): void {
  const seen = new Set<string>();
  for (const p of ports) {
    checkName(kind, p, `node '${nodeName}'`);
    if (seen.has(p)) {
      throw new GraphConfigError(
        `Node '${nodeName}' declares ${kind} '${p}' twice.\n  How to fix: give each ${kind} a distinct name.`,
        {
          where: nodeName,
        },
      );
    }
    seen.add(p);
  }
}

/**
 * Shared behaviour of every node: names, ports, immutable renames with history.
 * Subclasses keep their whole configuration in one frozen spec and rebuild from a patched copy.
 */
export abstract class BaseNode<S extends BaseSpec = BaseSpec> {
  /** @internal */
  readonly spec: S;
  /**
   * What the node is, for `switch (node.kind)`: `"function"`, `"gate"`, `"interrupt"` or `"graph"` (see `NodeKind`).
   * A new kind of node is a new member of `AnyNode` with its own literal here; the runtime's executor table then
   * fails to compile until the kind has an executor.
   */
  abstract readonly kind: string;
  /** The finer label shown in events and the structure view: the gates are `"route"` and `"branch"`. */
  abstract readonly nodeType: NodeType;
  /** The `@graph/node` brand (see `isNode`): the node protocol this node was built with. */
  readonly [NODE_BRAND]: number = NODE_PROTOCOL;
  readonly name: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];

  protected constructor(spec: S) {
    checkName("node", spec.name, (shown) => `node ${shown}`);
    checkPorts(
      spec.name,
      "input",
      spec.inputs.map((p) => p.name),
    );
    checkPorts(
      spec.name,
      "output",
      spec.outputs.map((p) => p.name),
    );
    this.spec = Object.freeze({ ...spec });
    this.name = spec.name;
    this.inputs = Object.freeze(spec.inputs.map((p) => p.name));
    this.outputs = Object.freeze(spec.outputs.map((p) => p.name));
  }

  /** True for `route` and `ifElse` nodes. */
  get isGate(): boolean {
    return this.kind === "gate";
  }

  /** @internal Builds a node of the same class from a new spec. */
  protected abstract rebuild(spec: S): this;

  /** A copy of this node with another name. */
  withName(name: string): BaseNode<S> {
    return this.rebuild({ ...this.spec, name });
  }

  /** A copy with inputs renamed (`{ old: "new" }`); all renames of one call apply at once, so `{ a: "b", b: "a" }` swaps. */
  withInputs(renames: Readonly<Record<string, string>>): BaseNode<S> {
    return this.rebuild({ ...this.spec, ...this.renamed("inputs", renames) });
  }

  /** A copy with outputs renamed (`{ old: "new" }`). */
  withOutputs(renames: Readonly<Record<string, string>>): BaseNode<S> {
    return this.rebuild({ ...this.spec, ...this.renamed("outputs", renames) });
  }

  /** The original (function-side) name of a public input. */
  originalInput(name: string): string | undefined {
    return this.spec.inputs.find((p) => p.name === name)?.original;
  }

  private renamed(
    kind: "inputs" | "outputs",
    renames: Readonly<Record<string, string>>,
  ): Pick<BaseSpec, "inputs" | "outputs" | "history"> {
    const ports = this.spec[kind];
    const singular = kind === "inputs" ? "input" : "output";
    const method = kind === "inputs" ? "withInputs" : "withOutputs";
    if (!isPlainRecord(renames)) {
      throw new GraphConfigError(
        `${method}() on node '${this.name}' expects an object of renames ({ old: "new" }), got ${describeValue(renames)}.\n  → Current ${kind}: ${quoteList(ports.map((p) => p.name))}`,
        { where: this.name },
      );
    }
    const current = new Set(ports.map((p) => p.name));
    for (const [from, to] of Object.entries(renames)) {
      if (!current.has(from)) throw this.unknownPort(kind, from);
      if (typeof to !== "string") {
        throw new GraphConfigError(
          `${method}() on node '${this.name}' renames ${singular} '${from}' to ${describeValue(to)}; a new name must be a string.\n  How to fix: ${method}({ ${from}: "${from}_2" }).`,
          { where: this.name },
        );
      }
    }
    const next = ports.map((p) =>
      Object.hasOwn(renames, p.name) ? { name: renames[p.name]!, original: p.original } : p,
    );
    const history = [
      ...this.spec.history,
      ...Object.entries(renames)
        .filter(([from, to]) => from !== to)
        .map(([from, to]) => ({ kind, from, to })),
    ];
    return { inputs: this.spec.inputs, outputs: this.spec.outputs, [kind]: next, history } as Pick<
      BaseSpec,
      "inputs" | "outputs" | "history"
    >;
  }

  private unknownPort(kind: "inputs" | "outputs", port: string): RenameError {
    const singular = kind === "inputs" ? "input" : "output";
    const current = this.spec[kind].map((p) => p.name);
    // Follow the rename chain so the message says what the name became.
    let became: string | undefined;
    let probe = port;
    for (const entry of this.spec.history) {
      if (entry.kind === kind && entry.from === probe) {
        became = entry.to;
        probe = entry.to;
      }
    }
    const history =
      became !== undefined ? `\n  → '${port}' was renamed to '${became}'; rename '${became}' instead.` : "";
    return new RenameError(
      `Cannot rename ${singular} '${port}' of node '${this.name}': it has no such ${singular}.${history}\n  → Current ${kind}: ${quoteList(current)}`,
      this.name,
      port,
    );
  }
}
