// The side panels: the selected workflow's actions, the interrupt's answer form, the start form, the selected
// node's or step's details (with what it changed), and a stored workflow's history with fork / edit-and-fork.
import { $, api, errorBox, h, pretty, put, workflowPath } from "./dom.js";
import { fieldFor, jsonField } from "./forms.js";
import { state } from "./model.js";
import { ms } from "./timeline.js";

let rerender = () => {};
/** The app's render function (panels re-render after their own actions). */
export function setRerender(fn) {
  rerender = fn;
}
/** Schedules a render of the page. */
export const rerenderPage = () => rerender();

export function follow(workflowId) {
  state.follow = true;
  state.selected = { kind: "live", id: workflowId };
  state.selectedNode = undefined;
  state.selectedStep = undefined;
}

/** Runs an API call for a form; a refusal is kept under `state.errors[form]` and shown next to it. */
export async function attempt(form, call) {
  state.errors[form] = undefined;
  try {
    return await call();
  } catch (e) {
    state.errors[form] = e;
    return undefined;
  } finally {
    rerender();
  }
}

// ───────────────────────────── actions on the selected workflow ─────────────────────────────

const ACTIONS = {
  running: ["stop"],
  paused: ["cancel"],
  dead: ["resume", "cancel"],
  failed: ["resume", "rerun"],
  stopped: ["resume", "rerun"],
  completed: ["rerun"],
};
const LABELS = { stop: "Stop", cancel: "Cancel", resume: "Resume", rerun: "Rerun" };

export function renderActions(target) {
  const box = $("actions");
  if (target === undefined) return put(box);
  const act = (action) => () =>
    attempt("action", async () => {
      const { workflowId } = await api(workflowPath(target.id, action), {});
      if (action === "rerun") follow(workflowId);
      else if (action === "resume") follow(target.id);
      setTimeout(() => window.dispatchEvent(new Event("devtools:reload")), 300);
    });
  put(
    box,
    h("span", { class: "badge", "data-state": target.status, "data-workflow-status": target.status }, target.status),
    ...(ACTIONS[target.status] ?? []).map((a) =>
      h("button", { type: "button", "data-action": a, onclick: act(a) }, LABELS[a]),
    ),
    errorBox("action-error", state.errors.action),
  );
}

// ───────────────────────────── the answer form ─────────────────────────────

function answerFormFor(pause, graphName) {
  const view = state.views.get(graphName ?? "");
  const node = view?.nodes.find((n) => n.path === pause.nodeName || n.path === pause.path);
  return node?.answer ?? { kind: "json" };
}

export function renderPause(pause, id, graphName) {
  const box = $("pause");
  box.hidden = pause === undefined;
  if (pause === undefined) {
    put(box);
    box.dataset.for = "";
    return;
  }
  const key = `${id}|${pause.nodeName}|${pause.visit}|${pause.value}`;
  const errorEl = box.querySelector('[data-field="answer-error"]');
  if (box.dataset.for === key) {
    // Keep what the person is typing; only the error line follows the model.
    errorEl?.replaceWith(errorBox("answer-error", state.errors.answer));
    return;
  }
  box.dataset.for = key;
  state.errors.answer = undefined;
  const form = answerFormFor(pause, graphName);
  // The pause's visit goes with the answer: one for a pause settled meanwhile is refused, never taken by a later one.
  const send = (body) =>
    attempt("answer", async () => {
      await api(workflowPath(id, "answer"), pause.visit === undefined ? body : { ...body, visit: pause.visit });
      box.dataset.for = "";
      follow(id);
    });
  const head = [
    h("h2", {}, `Paused at ${pause.nodeName}`),
    h("pre", { "data-field": "pause-value" }, pretty(pause.value)),
  ];
  if (form.kind === "buttons") {
    const text = h("textarea", { "data-field": "answer", placeholder: "Or type an answer…" });
    const click = (action) => () => send({ action, ...(text.value ? { text: text.value } : {}) });
    put(
      box,
      ...head,
      h("button", { type: "button", "data-action": "approve", onclick: click("approve") }, "Approve"),
      " ",
      h("button", { type: "button", "data-action": "reject", onclick: click("reject") }, "Reject"),
      text,
      h("button", { type: "button", "data-action": "send", onclick: click("text") }, "Send answer"),
      errorBox("answer-error", undefined),
    );
    return;
  }
  box.setAttribute("data-answer-kind", form.kind);
  const body = h("div", {});
  let field;
  const useJson = () => {
    const preview = h("pre", { "data-field": "answer-preview" }, "(empty)");
    field = jsonField({
      "data-field": "answer-json",
      placeholder: 'An answer as JSON, e.g. true or { "approved": true }',
    });
    field.el.addEventListener("input", () => {
      try {
        const v = field.read();
        preview.textContent = v === undefined ? "(empty)" : JSON.stringify(v, null, 2);
        preview.removeAttribute("data-invalid");
      } catch (e) {
        preview.textContent = e.message;
        preview.setAttribute("data-invalid", "true");
      }
    });
    put(body, field.el, h("div", { class: "muted" }, "Preview"), preview);
  };
  const schema = form.kind === "schema" ? form.schema : undefined;
  if (schema !== undefined && schema.type === "boolean") {
    put(
      box,
      ...head,
      h("button", { type: "button", "data-action": "approve", onclick: () => send({ value: true }) }, "Approve"),
      " ",
      h("button", { type: "button", "data-action": "reject", onclick: () => send({ value: false }) }, "Reject"),
      errorBox("answer-error", undefined),
    );
    return;
  }
  if (schema !== undefined) {
    field = fieldFor(schema, { "data-field": "answer-form" });
    put(body, field.el);
  } else useJson();
  const sendValue = () => {
    let value;
    try {
      value = field.read();
    } catch (e) {
      state.errors.answer = e;
      return rerender();
    }
    void send({ value: value ?? null });
  };
  put(
    box,
    ...head,
    body,
    schema === undefined
      ? undefined
      : h("button", { type: "button", "data-action": "answer-as-json", onclick: useJson }, "Edit as JSON"),
    h("button", { type: "button", "data-action": "send-answer", onclick: sendValue }, "Send answer"),
    errorBox("answer-error", undefined),
  );
}

// ───────────────────────────── start a run ─────────────────────────────

export function renderStart() {
  const box = $("start");
  const names = [...state.views.keys()];
  if (names.length === 0) return put(box, h("p", { class: "muted" }, "No graphs registered."));
  const chosen = box.dataset.graph && state.views.has(box.dataset.graph) ? box.dataset.graph : names[0];
  const errorEl = box.querySelector('[data-field="start-error"]');
  if (box.dataset.built === chosen) {
    errorEl?.replaceWith(errorBox("start-error", state.errors.start));
    return;
  }
  box.dataset.built = chosen;
  box.dataset.graph = chosen;
  const view = state.views.get(chosen);
  const select = h("select", { "data-field": "start-graph" }, ...names.map((n) => h("option", { value: n }, n)));
  select.value = chosen;
  select.addEventListener("change", () => {
    box.dataset.graph = select.value;
    state.errors.start = undefined;
    renderStart();
  });
  const fields = view.inputs.map((input) => {
    const attrs = { "data-input": input.name, placeholder: input.defaultValue ?? "JSON" };
    const f = input.schema === undefined ? jsonField(attrs) : fieldFor(input.schema, attrs);
    const hint = input.kind === "required" ? "" : input.kind === "seed" ? " (first value)" : " (optional)";
    return { input, f, el: h("label", {}, h("span", {}, `${input.name}${hint}`), f.el) };
  });
  const id = h("input", { type: "text", "data-field": "start-id", placeholder: "workflow id (optional)" });
  const start = () => {
    const values = {};
    try {
      for (const { input, f } of fields) {
        const v = f.read();
        // An empty optional field is "not given", not an empty string.
        if (v !== undefined && !(v === "" && input.kind !== "required")) values[input.name] = v;
      }
    } catch (e) {
      state.errors.start = e;
      return rerender();
    }
    void attempt("start", async () => {
      const body = { graph: chosen, values, ...(id.value.trim() ? { workflowId: id.value.trim() } : {}) };
      const { workflowId } = await api("/api/runs", body);
      follow(workflowId);
    });
  };
  put(
    box,
    select,
    ...fields.map((x) => x.el),
    id,
    h("button", { type: "button", "data-action": "start", onclick: start }, "Start run"),
    errorBox("start-error", state.errors.start),
  );
}

// ───────────────────────────── details of a node or a step ─────────────────────────────

function diffRows(changes) {
  const entries = Object.entries(changes ?? {});
  if (entries.length === 0) return [];
  return [
    h("h2", {}, "changed"),
    ...entries.map(([k, c]) =>
      h(
        "div",
        {
          "data-diff": k,
          "data-diff-kind": c.before === undefined ? "added" : c.before === c.after ? "same" : "changed",
        },
        h("div", {}, k),
        c.before === undefined ? undefined : h("pre", { class: "before", "data-side": "before" }, c.before),
        h("pre", { class: "after", "data-side": "after" }, c.after),
      ),
    ),
  ];
}

const values = (title, record) =>
  record === undefined || Object.keys(record).length === 0
    ? []
    : [h("h2", {}, title), ...Object.entries(record).flatMap(([k, v]) => [h("div", {}, k), h("pre", {}, v)])];

export function renderDetails(path, n, info) {
  if (path === undefined) return;
  const rows = [
    ["state", n?.state ?? "idle"],
    ["type", info?.type ?? n?.type ?? "?"],
    ["started", n?.startedAt === undefined ? "—" : new Date(n.startedAt).toLocaleTimeString()],
    ["duration", n?.durationMs === undefined ? "—" : `${n.durationMs} ms`],
    ["attempt", n?.attempt ?? 1],
  ];
  if (n?.earlier) rows.push(["run", "an earlier run (restored from the checkpoint)"]);
  if (n?.cached) rows.push(["cached", "yes"]);
  if (n?.decision !== undefined) rows.push(["decision", n.decision]);
  const collapse =
    info?.type === "graph" && info.id !== undefined
      ? h(
          "button",
          {
            type: "button",
            "data-action": "collapse",
            onclick: () => {
              if (state.collapsed.has(info.id)) state.collapsed.delete(info.id);
              else state.collapsed.add(info.id);
              rerender();
            },
          },
          state.collapsed.has(info.id) ? "Expand subgraph" : "Collapse subgraph",
        )
      : undefined;
  put(
    $("details"),
    h("h2", {}, path),
    h("table", { "data-details": path }, ...rows.map(([k, v]) => h("tr", {}, h("th", {}, k), h("td", {}, v)))),
    ...(n?.error === undefined ? [] : [h("h2", {}, "error"), h("pre", { class: "notice" }, n.error)]),
    ...values("inputs", n?.inputs),
    ...diffRows(n?.diff),
    ...values("outputs", n?.outputs),
    collapse,
  );
}

export function renderStepDetails(step) {
  put(
    $("details"),
    h("h2", {}, `${step.kind === "input" ? "values given" : step.nodeName} · superstep ${step.superstep}`),
    h(
      "table",
      { "data-step-details": step.index },
      h("tr", {}, h("th", {}, "status"), h("td", {}, step.status)),
      h("tr", {}, h("th", {}, "duration"), h("td", {}, ms(step.durationMs))),
      step.decision === undefined
        ? undefined
        : h("tr", {}, h("th", {}, "decision"), h("td", {}, JSON.stringify(step.decision))),
    ),
    ...(step.error === undefined ? [] : [h("h2", {}, "error"), h("pre", { class: "notice" }, step.error)]),
    ...diffRows(step.changes),
  );
}
