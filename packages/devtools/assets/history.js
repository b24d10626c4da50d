// A stored workflow's history: a waterfall of its steps (a nested graph's steps and a map's items open under their
// step), fork from a step, and "edit values and fork from here".
import { $, api, errorBox, h, put, workflowPath } from "./dom.js";
import { jsonField } from "./forms.js";
import { state } from "./model.js";
import { attempt, follow, rerenderPage as rerender } from "./panels.js";
import { bar, ms, storedScale, toggle } from "./timeline.js";

async function openChild(child) {
  if (!state.children.has(child.id)) {
    const path = child.kind === "map" ? workflowPath(child.id, "items") : workflowPath(child.id);
    state.children.set(child.id, await api(path).catch((e) => ({ error: e.message })));
  }
  toggle(`child:${child.id}`, rerender);
}

function stepRows(d, steps, depth, scale, forkable) {
  const out = [];
  for (const s of steps) {
    const child = s.child;
    const key = child === undefined ? undefined : `child:${child.id}`;
    const open = key !== undefined && state.toggled.has(key) && state.children.has(child.id);
    const loaded = child === undefined ? undefined : state.children.get(child.id);
    const progress = loaded?.counts === undefined ? undefined : countsText(loaded.counts);
    out.push(
      h(
        "tr",
        {
          "data-step": s.index,
          "data-step-kind": s.kind,
          "data-depth": depth,
          "data-status": s.status,
          ...(progress ? { "data-progress": progress } : {}),
          "aria-selected": depth === 0 && state.selectedStep === s.index,
          onclick: depth === 0 ? () => ((state.selectedStep = s.index), rerender()) : undefined,
        },
        h("td", {}, s.superstep),
        h(
          "td",
          { style: `padding-left:${depth}rem` },
          child === undefined
            ? undefined
            : h(
                "button",
                {
                  type: "button",
                  class: "twisty",
                  "data-toggle": key,
                  "aria-expanded": String(open),
                  onclick: (e) => (e.stopPropagation(), void openChild(child)),
                },
                open ? "▾" : "▸",
              ),
          s.kind === "input" ? "(values given)" : s.nodeName,
          progress ? ` (${progress})` : "",
        ),
        h("td", {}, h("span", { class: "badge", "data-state": s.status }, s.status)),
        h(
          "td",
          { class: "wf" },
          bar(Date.parse(s.startedAt), s.durationMs, scale),
          h("span", { class: "dur" }, ms(s.durationMs)),
        ),
        h(
          "td",
          {},
          forkable
            ? [
                h("button", { type: "button", "data-fork": s.superstep, onclick: fork(d, s.superstep) }, "Fork"),
                h(
                  "button",
                  { type: "button", "data-edit-fork": s.superstep, onclick: editFork(d, s.superstep) },
                  "Edit & fork",
                ),
              ]
            : undefined,
        ),
      ),
    );
    if (open) out.push(...childRows(d, loaded, depth + 1, scale));
  }
  return out;
}

const countsText = (counts) => {
  const parts = [];
  if (counts.stopped) parts.push(`${counts.stopped} stopped`);
  parts.push(`${counts.completed ?? 0} done`);
  if (counts.failed) parts.push(`${counts.failed} failed`);
  return parts.join(" / ");
};

function childRows(d, loaded, depth, scale) {
  if (loaded.error !== undefined) return [h("tr", {}, h("td", {}), h("td", { class: "notice" }, loaded.error))];
  if (loaded.steps !== undefined) return stepRows(d, loaded.steps, depth, scale, false);
  const rows = loaded.items
    .slice(0, 100)
    .map((item) =>
      h(
        "tr",
        { "data-item": item.id, "data-depth": depth, "data-status": item.status },
        h("td", {}),
        h("td", { style: `padding-left:${depth}rem` }, `item ${item.index}`),
        h("td", {}, h("span", { class: "badge", "data-state": item.status }, item.status)),
        h("td", { class: "wf" }, h("span", { class: "dur" }, ms(item.durationMs))),
        h("td", {}),
      ),
    );
  if (loaded.items.length > 100)
    rows.push(h("tr", {}, h("td", {}), h("td", { class: "muted" }, `… ${loaded.items.length - 100} more items`)));
  return rows;
}

const fork = (d, superstep) => (e) => {
  e.stopPropagation();
  void attempt("fork", async () => {
    const { workflowId } = await api(workflowPath(d.id, "fork"), { superstep });
    follow(workflowId);
  });
};

const editFork = (d, superstep) => (e) => {
  e.stopPropagation();
  void attempt("fork", async () => {
    const s = await api(`${workflowPath(d.id, "state")}?superstep=${superstep}`);
    state.forkEditor = { workflowId: d.id, superstep, values: s.values };
  });
};

/** The editor's elements, kept across renders so what the person types survives the next event. */
let editor = { key: "", els: [] };

function renderForkEditor() {
  const ed = state.forkEditor;
  if (ed === undefined || ed.workflowId !== state.detail?.id) return [];
  const key = `${ed.workflowId}|${ed.superstep}`;
  if (editor.key !== key) editor = { key, els: buildForkEditor(ed) };
  return editor.els;
}

function buildForkEditor(ed) {
  const fields = ed.values.map((v) => {
    if (!v.editable) return { v, el: h("label", {}, h("span", {}, `${v.name} (not editable)`), h("pre", {}, v.json)) };
    const f = jsonField({ "data-edit": v.name }, v.json);
    return { v, f, el: h("label", {}, h("span", {}, v.name), f.el) };
  });
  const send = () => {
    const values = {};
    try {
      for (const { v, f } of fields) if (f !== undefined && f.el.value !== v.json) values[v.name] = f.read();
    } catch (e) {
      state.errors.fork = e;
      return rerender();
    }
    void attempt("fork", async () => {
      const { workflowId } = await api(workflowPath(ed.workflowId, "fork"), { superstep: ed.superstep, values });
      state.forkEditor = undefined;
      editor = { key: "", els: [] };
      follow(workflowId);
    });
  };
  return [
    h("h2", {}, `Edit values and fork from superstep ${ed.superstep}`),
    h("div", { id: "fork-editor", "data-superstep": ed.superstep }, ...fields.map((x) => x.el)),
    h("button", { type: "button", "data-action": "fork-edited", onclick: send }, "Fork with these values"),
    h(
      "button",
      {
        type: "button",
        "data-action": "fork-cancel",
        onclick: () => ((state.forkEditor = undefined), (editor = { key: "", els: [] }), rerender()),
      },
      "Cancel",
    ),
  ];
}

export function renderHistory(d) {
  const box = $("history");
  box.hidden = d === undefined;
  if (d === undefined) return;
  const scale = storedScale(d.steps);
  put(
    box,
    h("h2", {}, `History of ${d.id} (${d.status})`),
    d.error === undefined ? undefined : h("pre", { class: "notice", "data-field": "workflow-error" }, d.error),
    h(
      "table",
      { class: "waterfall" },
      h(
        "tr",
        {},
        h("th", {}, "step"),
        h("th", {}, "node"),
        h("th", {}, "status"),
        h("th", {}, "time"),
        h("th", {}, ""),
      ),
      ...stepRows(d, d.steps, 0, scale, true),
    ),
    errorBox("fork-error", state.errors.fork),
    ...renderForkEditor(),
    h("h2", {}, "Final values"),
    ...Object.entries(d.values).flatMap(([k, v]) => [h("div", {}, k), h("pre", {}, v)]),
  );
}
