// The waterfall of a run: one row per node (nested graphs under their GraphNode, map items under their mapped node,
// both collapsible) with a bar from its start to its end on the run's time scale, and its duration.
import { h } from "./dom.js";
import { progressOf, state } from "./model.js";

/** Rows shown per open map; the rest are counted. */
const ITEM_ROWS = 100;

/** Open/closed by default (nested graphs open, map items closed); a click flips it. */
const isOpen = (key, byDefault) => (state.toggled.has(key) ? !byDefault : byDefault);
export function toggle(key, rerender) {
  if (state.toggled.has(key)) state.toggled.delete(key);
  else state.toggled.add(key);
  rerender();
}

function bar(start, durationMs, scale) {
  const el = h("span", { class: "bar" });
  if (start !== undefined) {
    el.style.left = `${(100 * (start - scale.t0)) / scale.span}%`;
    el.style.width = `${Math.max(0.5, (100 * (durationMs ?? scale.now - start)) / scale.span)}%`;
  }
  return h("span", { class: "track" }, el);
}

const ms = (d) => (d === undefined ? "—" : `${Math.round(d)} ms`);

/** A row: toggle (when it has children), label, state badge, bar, duration. */
function row(attrs, depth, label, st, start, duration, scale, toggleKey, open, rerender) {
  return h(
    "div",
    {
      class: "row",
      ...attrs,
      "data-state": st,
      "data-duration-ms": duration === undefined ? "" : Math.round(duration),
    },
    h(
      "span",
      { class: "name", style: `padding-left:${depth}rem` },
      toggleKey === undefined
        ? h("span", { class: "twisty" })
        : h(
            "button",
            {
              type: "button",
              class: "twisty",
              "data-toggle": toggleKey,
              "aria-expanded": String(open),
              onclick: () => toggle(toggleKey, rerender),
            },
            open ? "▾" : "▸",
          ),
      label,
    ),
    h("span", { class: "badge", "data-state": st }, st),
    bar(start, duration, scale),
    h("span", { class: "dur" }, ms(duration)),
  );
}

/** The live run's waterfall. */
export function liveTimeline(run, onSelect, rerender) {
  if (run === undefined) return [];
  const entries = [...run.nodes].filter(([, n]) => n.startedAt !== undefined || n.earlier);
  const now = run.status === "running" ? Date.now() : (run.endedAt ?? Date.now());
  let t0 = Infinity;
  for (const [, n] of entries) if (n.startedAt !== undefined) t0 = Math.min(t0, n.startedAt);
  if (!Number.isFinite(t0)) t0 = run.firstStartedAt;
  const scale = { t0, now, span: Math.max(1, now - t0) };
  const byParent = new Map();
  for (const e of entries.sort((a, b) => (a[1].startedAt ?? 0) - (b[1].startedAt ?? 0))) {
    const parent = e[0].includes("/") ? e[0].slice(0, e[0].lastIndexOf("/")) : "";
    if (!byParent.has(parent)) byParent.set(parent, []);
    byParent.get(parent).push(e);
  }
  const out = [];
  const walk = (parent, depth) => {
    for (const [path, n] of byParent.get(parent) ?? []) {
      const hasItems = n.items !== undefined && n.items.size > 0;
      const hasNested = byParent.has(path);
      const key = hasItems ? `items:${path}` : `nested:${path}`;
      const open = hasItems ? isOpen(key, false) : isOpen(key, true);
      const progress = progressOf(n);
      const el = row(
        {
          "data-timeline-row": path,
          "data-earlier": String(n.earlier === true),
          ...(progress ? { "data-progress": progress } : {}),
        },
        depth,
        h(
          "a",
          { href: "#", onclick: (e) => (e.preventDefault(), onSelect(path)) },
          `${path.slice(path.lastIndexOf("/") + 1)}${progress ? ` (${progress})` : ""}`,
        ),
        n.state,
        n.startedAt,
        n.durationMs,
        scale,
        hasItems || hasNested ? key : undefined,
        open,
        rerender,
      );
      out.push(el);
      if (!open) continue;
      if (hasNested && !hasItems) walk(path, depth + 1);
      if (hasItems) {
        const items = [...n.items].sort((a, b) => a[0] - b[0]);
        for (const [i, item] of items.slice(0, ITEM_ROWS))
          out.push(
            row(
              { "data-timeline-item": `${path}[${i}]` },
              depth + 1,
              `item ${i}`,
              item.state,
              item.startedAt,
              item.durationMs,
              scale,
              undefined,
              false,
              rerender,
            ),
          );
        const more = (n.itemCounts?.started ?? items.length) - Math.min(items.length, ITEM_ROWS);
        if (more > 0) out.push(h("div", { class: "row muted" }, `… ${more} more items`));
      }
    }
  };
  walk("", 0);
  return out;
}

/** Time scale of a stored workflow's steps (and of the child steps shown open). */
export function storedScale(steps) {
  let t0 = Infinity;
  let t1 = -Infinity;
  for (const s of steps) {
    const start = Date.parse(s.startedAt);
    t0 = Math.min(t0, start);
    t1 = Math.max(t1, start + s.durationMs);
  }
  if (!Number.isFinite(t0)) return { t0: 0, now: 1, span: 1 };
  return { t0, now: t1, span: Math.max(1, t1 - t0) };
}

export { bar, ms };
