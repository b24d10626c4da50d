// Drawing the graph with Mermaid and colouring its nodes. Mermaid runs at securityLevel "strict" and the server
// already turned `<`, `>` and `&` in labels into entity codes; on top of that the SVG is parsed as XML and cleaned
// (no scripts, no foreign content, no event handlers, no outside links) before it enters the page. It is never
// assigned with innerHTML.
/* global mermaid */
import { $, h, put } from "./dom.js";
import { progressOf, state } from "./model.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const FORBIDDEN = new Set([
  "script",
  "foreignobject",
  "iframe",
  "object",
  "embed",
  "image",
  "a",
  "use",
  "animate",
  "set",
]);

/** The SVG text as a cleaned element of this document, or undefined when it is not well-formed SVG. */
export function safeSvg(text) {
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const root = doc.documentElement;
  if (root.namespaceURI !== SVG_NS || root.localName !== "svg" || doc.querySelector("parsererror") !== null)
    return undefined;
  for (const el of [...root.querySelectorAll("*")]) {
    if (el.namespaceURI !== SVG_NS || FORBIDDEN.has(el.localName.toLowerCase())) {
      el.remove();
      continue;
    }
    for (const attr of [...el.attributes]) {
      const name = attr.name.toLowerCase();
      if (name.startsWith("on") || ((name === "href" || name.endsWith(":href")) && !attr.value.startsWith("#")))
        el.removeAttribute(attr.name);
    }
  }
  return document.importNode(root, true);
}

let drawn = { key: "", elements: new Map() };
let drawing = 0;

/** Mermaid text with the collapsed subgraphs drawn as single nodes. */
function collapse(text) {
  const out = [];
  let skipUntil;
  for (const line of text.split("\n")) {
    if (skipUntil !== undefined) {
      if (line === skipUntil) skipUntil = undefined;
      continue;
    }
    const m = /^(\s*)subgraph (\S+) \[(.*)\]$/.exec(line);
    if (m !== null && state.collapsed.has(m[2])) {
      out.push(`${m[1]}${m[2]}[${m[3]}]`);
      skipUntil = `${m[1]}end`;
      continue;
    }
    out.push(line);
  }
  return out.join("\n");
}

/** A text element for a node whose label Mermaid drew some other way (the page removed it): centred. */
function addText(g) {
  const host = g.querySelector("g.label") ?? g;
  const text = document.createElementNS(SVG_NS, "text");
  text.setAttribute("text-anchor", "middle");
  text.setAttribute("dominant-baseline", "middle");
  host.append(text);
  return text;
}

/** Mermaid may wrap a label over several tspans: the first gets the whole text, the others are emptied. */
function setLabel(textEl, text) {
  const spans = [...textEl.querySelectorAll("tspan")].filter((s) => s.children.length === 0);
  if (spans.length === 0) {
    if (textEl.textContent !== text) textEl.textContent = text;
    return;
  }
  if (spans[0].textContent !== text) spans[0].textContent = text;
  for (const s of spans.slice(1)) s.textContent = "";
}

/** Draws `view` when it changed, then sets each node's state from `nodes`; `onSelect(path)` on click. */
export function renderGraph(view, nodes, onSelect, rerender) {
  const key = view === undefined ? "" : `${view.name}|${[...state.collapsed].sort().join(",")}`;
  if (key !== drawn.key) {
    drawn = { key, elements: new Map() };
    if (view === undefined) put($("graph"));
    else void draw(view, key, onSelect, rerender);
  }
  const placed = new Set();
  for (const [path, el] of drawn.elements) {
    const n = nodes.get(path);
    placed.add(path);
    el.setAttribute("data-state", n?.state ?? "idle");
    el.setAttribute("data-earlier", String(n?.earlier === true));
    el.setAttribute("data-selected", String(state.selectedNode === path));
    // The label is always written here, as text: Mermaid only drew a look-alike for the layout (see graphView.ts).
    const label = el.querySelector("text") ?? addText(el);
    const progress = n === undefined ? undefined : progressOf(n);
    if (progress !== undefined) el.setAttribute("data-progress", progress);
    if (label !== null)
      setLabel(label, progress === undefined ? el.dataset.label : `${el.dataset.label} · ${progress}`);
  }
  // Nodes the drawing does not show (unregistered graph, collapsed subgraph): badges under the graph.
  const rest = [...nodes].filter(([path]) => !placed.has(path));
  put(
    $("unplaced"),
    ...rest.map(([path, n]) =>
      h("span", { "data-row": path, class: "badge", "data-state": n.state, onclick: () => onSelect(path) }, path),
    ),
  );
}

async function draw(view, key, onSelect, rerender) {
  const generation = ++drawing;
  let svg;
  try {
    ({ svg } = await mermaid.render(`graph-${generation}`, collapse(view.mermaid)));
  } catch (e) {
    state.notice = `Could not draw graph '${view.name}': ${e.message}`;
    return;
  }
  if (generation !== drawing) return;
  const host = $("graph");
  const el = safeSvg(svg);
  if (el === undefined) {
    state.notice = `Could not draw graph '${view.name}': Mermaid's output is not well-formed SVG.`;
    put(host);
    return;
  }
  put(host, el);
  const byId = new Map(view.nodes.filter((n) => n.id !== undefined).map((n) => [n.id, n]));
  const elements = new Map();
  const idOf = (g) => {
    const raw = g.id ?? "";
    const m = /flowchart-([A-Za-z0-9_]+)-\d+$/.exec(raw);
    if (m !== null) return m[1];
    for (const id of byId.keys()) if (raw === id || raw.endsWith(`-${id}`)) return id;
    return undefined;
  };
  for (const g of host.querySelectorAll("g.node, g.cluster")) {
    const node = byId.get(idOf(g));
    if (node === undefined) continue;
    g.setAttribute("data-node", node.path);
    g.setAttribute("data-type", node.type);
    g.dataset.label = node.label;
    g.addEventListener("click", (e) => {
      e.stopPropagation();
      onSelect(node.path);
    });
    elements.set(node.path, g);
  }
  if (drawn.key === key) drawn.elements = elements;
  rerender();
}
