// The endpoint form's parts that the settings tab and the create view share: the event-type pick-list (the types
// this customer sees, read once per page) and the number fields' parsing.

import { api, query } from "./api.js";
import { clear, field, h } from "./dom.js";

const EVENT_TYPE_PAGES = 20; // catalog pages the pick-list reads, at most

let knownTypes = null; // a promise of the pick-list's event types, fetched once

// The pick-list's event types: those this customer sees (its endpoints' types and those sent to it), the registered
// ones (every page) and, from the first page's `sent`, the rest. Each {name, description, deprecated}, by name.
async function loadEventTypes() {
  const byName = new Map();
  const add = (name, info) => {
    if (typeof name === "string" && name && !byName.has(name)) byName.set(name, { name, description: "", deprecated: false, ...info });
  };
  let cursor = null;
  for (let pages = 0; pages < EVENT_TYPE_PAGES; pages++) {
    let r;
    try {
      r = await api("GET", `/v1/event-types${query({ cursor })}`);
    } catch (e) {
      if (pages === 0 || e.expired) throw e;
      break; // a later page failed: offer what the earlier ones listed
    }
    for (const item of Array.isArray(r && r.items) ? r.items : []) {
      if (typeof item === "string") add(item, {}); // the list before the catalog: names only
      else if (item && typeof item === "object") add(item.name, { description: typeof item.description === "string" ? item.description : "", deprecated: item.deprecated === true });
    }
    for (const name of Array.isArray(r && r.sent) ? r.sent : []) add(name, {});
    cursor = r && r.next;
    if (!cursor) break;
  }
  return [...byName.values()];
}

function eventTypes() {
  if (!knownTypes) {
    knownTypes = loadEventTypes().catch((e) => {
      knownTypes = null; // try again next time
      if (e.expired) throw e;
      return [];
    });
  }
  return knownTypes;
}

// The pick-list: a checkbox per known type (ticked when selected) and a text field for others; value() reads both.
export function eventTypePicker(idPrefix, selected) {
  const chosen = new Set(selected || []);
  const list = h("div", { class: "type-list", role: "group", "aria-labelledby": `${idPrefix}-types-label`, "data-testid": "event-type-list" }, h("span", { class: "muted" }, "Loading event types…"));
  const other = h("input", { type: "text", name: "other_types", autocomplete: "off", spellcheck: "false", placeholder: "e.g. invoice.paid, customer.created" });
  const wrap = h("fieldset", { class: "field types" },
    h("legend", { id: `${idPrefix}-types-label` }, "Event types"),
    h("p", { class: "hint" }, "Tick the types this endpoint should receive, or type others separated by commas. Leave everything empty to receive every type."),
    list,
    field(`${idPrefix}-other-types`, "Other event types", other),
  );
  eventTypes().then(
    (known) => {
      const info = new Map(known.map((t) => [t.name, t]));
      const all = [...new Set([...info.keys(), ...chosen])].sort();
      clear(list);
      if (!all.length) list.append(h("span", { class: "muted" }, "No event types have been sent to you yet; type the types you expect."));
      all.forEach((type, i) => {
        const cid = `${idPrefix}-type-${i}`;
        const t = info.get(type) || { description: "", deprecated: false };
        list.append(h("div", { class: "check", "data-testid": "event-type-choice", "data-deprecated": t.deprecated ? "true" : null },
          h("input", { type: "checkbox", id: cid, value: type, checked: chosen.has(type), "data-testid": "event-type-option" }),
          h("label", { for: cid, title: t.description || null },
            h("span", { class: "mono" }, type),
            t.deprecated ? h("span", { class: "deprecated-mark", "data-testid": "event-type-deprecated" }, " (deprecated)") : null,
          ),
        ));
      });
    },
    () => clear(list),
  );
  return {
    node: wrap,
    value() {
      const types = [...list.querySelectorAll("input[type=checkbox]:checked")].map((c) => c.value);
      for (const t of other.value.split(/[\s,]+/)) if (t && !types.includes(t)) types.push(t);
      return types;
    },
  };
}

// A number field's value: undefined when empty, NaN when not a number.
export function numberValue(input) {
  const raw = input.value.trim();
  if (raw === "") return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : NaN;
}
