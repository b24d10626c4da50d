// Forms built from JSON Schemas (the interrupt's answer schema, a graph input's zod schema). Each field knows how
// to read its value back; anything the builder can't draw as a control is a JSON text area. The server validates
// what is sent, so the form only helps: it never is the check.
import { h } from "./dom.js";

const typeOf = (schema) => {
  if (schema === undefined || schema === null || typeof schema !== "object") return undefined;
  if (Array.isArray(schema.enum)) return "enum";
  if (schema.const !== undefined) return "const";
  const t = Array.isArray(schema.type) ? schema.type.find((x) => x !== "null") : schema.type;
  return t;
};

/** A JSON text area: reads as the parsed value, or throws a readable error. Empty reads as `undefined`. */
export function jsonField(attrs, initial = "") {
  const el = h("textarea", { ...attrs, spellcheck: "false", class: "json" });
  el.value = initial;
  return {
    el,
    read() {
      if (el.value.trim() === "") return undefined;
      try {
        return JSON.parse(el.value);
      } catch (e) {
        throw new Error(`${attrs["data-input"] ?? attrs["data-answer-field"] ?? "value"} is not JSON: ${e.message}`);
      }
    },
  };
}

/**
 * A control for one schema: checkbox (boolean), select (enum), number/text input, a fieldset of controls for an
 * object with properties, else JSON. `attrs` name the field for tests (`data-answer-field="note"`).
 */
export function fieldFor(schema, attrs, initial) {
  const type = typeOf(schema);
  if (type === "boolean") {
    const el = h("input", { ...attrs, type: "checkbox" });
    el.checked = initial === true;
    return { el, read: () => el.checked };
  }
  if (type === "enum") {
    const el = h("select", attrs, ...schema.enum.map((v, i) => h("option", { value: String(i) }, JSON.stringify(v))));
    return { el, read: () => schema.enum[Number(el.value)] };
  }
  if (type === "const") return { el: h("code", attrs, JSON.stringify(schema.const)), read: () => schema.const };
  if (type === "string") {
    const el = h("input", { ...attrs, type: "text" });
    el.value = typeof initial === "string" ? initial : "";
    return { el, read: () => el.value };
  }
  if (type === "number" || type === "integer") {
    const el = h("input", { ...attrs, type: "number", step: type === "integer" ? "1" : "any" });
    if (typeof initial === "number") el.value = String(initial);
    return { el, read: () => (el.value === "" ? undefined : Number(el.value)) };
  }
  if (type === "object" && schema.properties !== undefined && typeof schema.properties === "object") {
    const prefix = attrs["data-answer-field"] ? `${attrs["data-answer-field"]}.` : "";
    const required = new Set(schema.required ?? []);
    const fields = Object.entries(schema.properties).map(([key, sub]) => {
      const name = `${prefix}${key}`;
      const f = fieldFor(sub, { "data-answer-field": name }, initial?.[key]);
      const label = h("label", {}, h("span", {}, `${key}${required.has(key) ? "" : " (optional)"}`), f.el);
      return { key, f, label };
    });
    return {
      el: h("fieldset", attrs, ...fields.map((x) => x.label)),
      read() {
        const out = {};
        for (const { key, f } of fields) {
          const v = f.read();
          if (v !== undefined) out[key] = v;
        }
        return out;
      },
    };
  }
  return jsonField(attrs, initial === undefined ? "" : JSON.stringify(initial, null, 2));
}
