// An endpoint's page: its title, badges and tabs; each tab's content comes from settings.js, deliveries.js or
// failures.js.

import { api, enc } from "./api.js";
import { renderDeliveries } from "./deliveries.js";
import { errorBox, focusHeading, h, heading } from "./dom.js";
import { renderFailures } from "./failures.js";
import { circuitBadge, lineNotice, orderedBadge, statusBadge, where } from "./format.js";
import { link } from "./nav.js";
import { current } from "./session.js";
import { renderSettings } from "./settings.js";

const TABS = [
  ["settings", "Settings"],
  ["deliveries", "Delivery log"],
  ["failures", "Failures & replay"],
];

export async function renderEndpoint(root, id, tab, seq) {
  if (!TABS.some(([t]) => t === tab)) tab = "settings";
  root.append(h("p", { class: "back" }, link("← All endpoints", {}, { "data-testid": "back-link" })), h("p", { class: "loading" }, "Loading endpoint…"));
  let detail;
  try {
    detail = await api("GET", `/v1/endpoints/${enc(id)}`);
  } catch (e) {
    if (e.expired || !current(seq)) return;
    root.lastChild.replaceWith(errorBox(e.status === 404 ? "This endpoint no longer exists." : e.message, "endpoint-error"));
    return;
  }
  if (!current(seq)) return;
  root.lastChild.remove();
  const header = h("div", { class: "detail-head" },
    heading(1, where(detail), { class: "view-title endpoint-url", "data-testid": "endpoint-title" }),
    h("div", { class: "badges" }, statusBadge(detail), circuitBadge(detail.health && detail.health.circuit), orderedBadge(detail)),
    detail.description ? h("p", { class: "description", "data-testid": "endpoint-description" }, detail.description) : null,
    lineNotice(detail),
  );
  const nav = h("nav", { class: "tabs", "aria-label": "Endpoint sections" },
    TABS.map(([key, label]) =>
      link(label, { view: "endpoint", id, tab: key }, { class: "tab", "data-testid": `tab-${key}`, "aria-current": key === tab ? "page" : null }),
    ),
  );
  const body = h("div", { class: "tab-body" });
  root.append(header, nav, body);
  focusHeading(root);
  if (tab === "deliveries") renderDeliveries(body, detail, seq);
  else if (tab === "failures") renderFailures(body, detail, seq);
  else renderSettings(body, detail, seq);
}
