// The settings tab's content-filter panel: the endpoint's filter (an EventBridge event pattern over {"type",
// "customer", "data"}) shown and edited as JSON, and a tester that asks the API (POST /v1/filters/test, the rule
// delivery applies) whether a sample event passes the filter as it is typed, before it is saved.

import { api, enc } from "./api.js";
import { busy, button, clear, errorBox, field, h, mutating, okBox, replaceContent, report, section } from "./dom.js";
import { state } from "./session.js";

const EXAMPLE = '{"data": {"amount": [{"numeric": [">=", 100]}]}}';
const NO_FILTER = "No filter: every event of this endpoint's types is delivered.";

// A filter as JSON text, compact: most are a line or two (a pretty-printed one grows a line per bracket).
function asText(value) {
  return JSON.stringify(value);
}

// A JSON text field's value: {value} (null when the field is empty), or {error} saying why it is not JSON.
function readJson(text, what) {
  const raw = text.trim();
  if (!raw) return { value: null };
  try {
    return { value: JSON.parse(raw) };
  } catch (e) {
    return { error: `${what} is not valid JSON: ${e.message}` };
  }
}

// The API's refusal of a filter names the bad part (e.g. 'filter.data.amount': …): shown as it is, after what failed.
function refusal(e, what) {
  return e.code === "invalid_filter" ? `${what}: ${e.message}` : e.message;
}

function markInvalid(input, invalid) {
  if (!input) return;
  if (invalid) input.setAttribute("aria-invalid", "true");
  else input.removeAttribute("aria-invalid");
}

function codeArea(name, text, rows) {
  return h("textarea", { name, class: "code-input", rows: String(rows), spellcheck: "false", autocomplete: "off", autocapitalize: "off" }, text);
}

export function filterSection(detail) {
  const saved = h("div", { class: "filter-saved", "data-testid": "filter-current" });
  const showSaved = () => replaceContent(saved, detail.filter
    ? [h("p", { class: "excerpt-label" }, "Current filter"), h("pre", { class: "excerpt", "data-testid": "filter-json" }, asText(detail.filter))]
    : h("p", { class: "muted", "data-testid": "filter-none" }, NO_FILTER));
  showSaved();
  const editor = state.readOnly ? null : codeArea("filter", detail.filter ? asText(detail.filter) : "", 6);
  return section("Content filter", "content-filter",
    h("p", { class: "muted" },
      "Of the event types it subscribes to, this endpoint receives only the events that match its filter: an EventBridge event pattern over ",
      h("span", { class: "mono" }, '{"type", "customer", "data"}'), "."),
    saved,
    editor ? editorForm(detail, editor, showSaved) : null,
    tester(detail, editor),
  );
}

function editorForm(detail, editor, showSaved) {
  const result = h("div", { class: "result", "data-testid": "filter-result" });
  const save = h("button", { type: "submit", class: "btn btn-primary", id: "save-filter", "data-testid": "save-filter" }, "Save filter");
  const form = h("form", { class: "form", id: "filter-form", novalidate: true, "data-mutating": "" },
    field("filter-editor", "Filter (JSON)", editor, ["For example ", h("span", { class: "mono" }, EXAMPLE), " delivers only events whose data.amount is at least 100. Leave it empty to remove the filter."]),
    h("div", { class: "actions" }, mutating(save)),
    result,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    clear(result);
    const typed = readJson(editor.value, "The filter");
    markInvalid(editor, !!typed.error);
    if (typed.error) {
      report(result, errorBox(typed.error, "filter-error"));
      return;
    }
    busy(save, true, "Saving…");
    try {
      // Empty removes the filter (null); anything else is the API's to accept or refuse, naming the bad part.
      const updated = await api("PATCH", `/v1/endpoints/${enc(detail.id)}`, { filter: typed.value });
      busy(save, false);
      detail.filter = updated && updated.filter ? updated.filter : null;
      editor.value = detail.filter ? asText(detail.filter) : "";
      showSaved();
      report(result, okBox(detail.filter ? "Filter saved." : `Filter removed. ${NO_FILTER}`, "filter-saved"));
    } catch (e) {
      busy(save, false);
      if (e.expired) return;
      markInvalid(editor, e.code === "invalid_filter");
      report(result, errorBox(refusal(e, "The filter was not saved"), "filter-error"));
    }
  });
  return form;
}

// A sample event to try the filter on: the filter as typed in the editor (the saved one for a read-only session).
function tester(detail, editor) {
  const types = Array.isArray(detail.event_types) ? detail.event_types : [];
  const customer = state.session && state.session.customer ? state.session.customer.uid || "" : "";
  const type = h("input", { type: "text", name: "type", value: types[0] || "", autocomplete: "off", spellcheck: "false", placeholder: "e.g. invoice.paid" });
  const addressed = h("input", { type: "text", name: "customer", value: customer, autocomplete: "off", spellcheck: "false" });
  const data = codeArea("data", "{}", 5);
  const result = h("div", { class: "result", "data-testid": "filter-test-result", "aria-live": "polite" });
  const run = button("Test filter", { class: "btn btn-secondary", id: "run-filter-test", "data-testid": "run-filter-test" }, async () => {
    clear(result);
    const filter = editor ? readJson(editor.value, "The filter") : { value: detail.filter || null };
    markInvalid(editor, !!filter.error);
    if (filter.error) {
      result.append(errorBox(filter.error, "filter-test-error"));
      return;
    }
    const sample = readJson(data.value, "The event's data");
    markInvalid(data, !!sample.error);
    if (sample.error) {
      result.append(errorBox(sample.error, "filter-test-error"));
      return;
    }
    if (filter.value === null) {
      result.append(outcome(true, NO_FILTER, detail, type.value.trim()));
      return;
    }
    const event = { type: type.value.trim(), customer: addressed.value.trim() || null, data: data.value.trim() ? sample.value : {} };
    busy(run, true, "Testing…");
    try {
      const answer = await api("POST", "/v1/filters/test", { filter: filter.value, event });
      const matches = !!(answer && answer.matches === true);
      result.append(outcome(matches, matches
        ? "Matches: an event like this one is delivered to this endpoint."
        : "Does not match: an event like this one is filtered out, and this endpoint gets no delivery of it.", detail, event.type));
    } catch (e) {
      if (e.expired) return;
      markInvalid(editor, e.code === "invalid_filter");
      result.append(errorBox(refusal(e, "The filter is not valid"), "filter-test-error"));
    } finally {
      busy(run, false);
    }
  });
  return h("div", { class: "filter-tester", "data-testid": "filter-tester", role: "group", "aria-labelledby": "filter-tester-title" },
    h("h3", { id: "filter-tester-title" }, "Test the filter against an event"),
    h("p", { class: "hint" }, editor ? "Tries the filter as typed above, saved or not. Nothing is sent or stored." : "Tries the saved filter. Nothing is sent or stored."),
    h("div", { class: "tester-inputs" },
      field("filter-test-type", "Event type", type),
      field("filter-test-customer", "Customer", addressed, "Events addressed to you carry your customer id; a broadcast carries none (leave it empty)."),
    ),
    field("filter-test-data", "Event data (JSON)", data),
    h("div", { class: "actions" }, run),
    result,
  );
}

function outcome(matches, text, detail, type) {
  const types = Array.isArray(detail.event_types) ? detail.event_types : [];
  const unsubscribed = type && types.length && !types.includes(type);
  return h("div", { class: `alert ${matches ? "alert-ok" : "alert-neutral"}`, role: "status", "data-testid": "filter-test-outcome", "data-matches": String(matches) },
    h("p", { class: "strong" }, text),
    unsubscribed ? h("p", { "data-testid": "filter-test-unsubscribed" }, "Note: this endpoint does not subscribe to ", h("span", { class: "mono" }, type), ", so it does not receive such events either way.") : null,
  );
}
