// The add-endpoint view: the form, then the created endpoint's secret, shown once.

import { api } from "./api.js";
import { busy, clear, errorBox, field, focusHeading, h, heading, replaceContent, report } from "./dom.js";
import { URL_HINT, where } from "./format.js";
import { eventTypePicker, numberValue } from "./forms.js";
import { link } from "./nav.js";
import { ceiling, producerName } from "./session.js";

export function renderCreate(root) {
  const limits = ceiling();
  const url = h("input", { type: "url", name: "url", required: true, autocomplete: "off", spellcheck: "false", placeholder: "https://example.com/webhooks" });
  const description = h("input", { type: "text", name: "description", maxlength: "500" });
  const picker = eventTypePicker("new", []);
  const rate = h("input", { type: "number", name: "rate_limit_per_second", min: "0.1", step: "any", inputmode: "decimal", placeholder: "10" });
  const concurrency = h("input", { type: "number", name: "max_concurrency", min: "1", step: "1", inputmode: "numeric", placeholder: "5" });
  const result = h("div", { class: "result", "data-testid": "create-result" });
  const submit = h("button", { type: "submit", class: "btn btn-primary", id: "create-submit", "data-testid": "create-submit", "data-mutating": "" }, "Create endpoint");
  const form = h("form", { class: "form panel", id: "create-form", novalidate: true, "data-testid": "create-form", "data-mutating": "" },
    field("new-url", "URL", url, URL_HINT),
    field("new-description", "Description (optional)", description),
    picker.node,
    h("div", { class: "pace-inputs" },
      field("new-rate", "Rate limit per second (optional)", rate, limits.rate !== undefined ? `Default 10; up to ${limits.rate} on your plan.` : "Default 10."),
      field("new-concurrency", "Max concurrency (optional)", concurrency, limits.concurrency !== undefined ? `Default 5; up to ${limits.concurrency} on your plan.` : "Default 5."),
    ),
    h("div", { class: "actions" }, submit, link("Cancel", {}, { class: "btn btn-secondary", "data-testid": "create-cancel" })),
    result,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    clear(result);
    if (!url.value.trim()) {
      result.append(errorBox("Enter the URL webhooks should go to.", "create-error"));
      url.focus();
      return;
    }
    const body = { url: url.value.trim() };
    if (description.value.trim()) body.description = description.value.trim();
    const types = picker.value();
    if (types.length) body.event_types = types;
    const r = numberValue(rate);
    const c = numberValue(concurrency);
    if (Number.isNaN(r) || Number.isNaN(c)) {
      report(result, errorBox("Rate limit and max concurrency must be numbers.", "create-error"));
      return;
    }
    if (r !== undefined) body.rate_limit_per_second = r;
    if (c !== undefined) body.max_concurrency = c;
    busy(submit, true, "Creating…");
    try {
      const created = await api("POST", "/v1/endpoints", body);
      showCreated(root, created);
    } catch (e) {
      busy(submit, false);
      if (!e.expired) report(result, errorBox(e.message, "create-error"));
    }
  });
  root.append(
    h("p", { class: "back" }, link("← All endpoints", {}, { "data-testid": "back-link" })),
    heading(1, "Add an endpoint"),
    h("p", { class: "lede" }, `${producerName()} will send the events you choose to this URL, signed with a secret only you and they know.`),
    form,
  );
  focusHeading(root);
}

function showCreated(root, created) {
  const go = link("Open the endpoint", { view: "endpoint", id: created.id }, { class: "btn btn-primary", "data-testid": "open-created" });
  replaceContent(root,
    h("p", { class: "back" }, link("← All endpoints", {}, { "data-testid": "back-link" })),
    heading(1, "Endpoint created", { "data-testid": "created-title" }),
    h("section", { class: "panel", "data-testid": "created" },
      h("p", {}, "Webhooks for ", h("span", { class: "mono", "data-testid": "created-url" }, where(created)), " are signed with this secret. Copy it now; you can reveal it again from the endpoint's settings."),
      h("code", { class: "secret", "data-testid": "created-secret" }, created.secret || ""),
      h("div", { class: "actions" }, go),
    ),
  );
  root.querySelector(".view-title").focus();
}
