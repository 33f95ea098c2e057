// The endpoint's delivery log tab: every delivery, newest first, filtered by status and time window and paged, or the
// one delivery of an event found by its id; each expands to its attempts (with the headers sent), and one that ended
// can be retried.

import { api, enc, PAGE_SIZE, query } from "./api.js";
import { busy, button, clear, errorBox, field, h, mutating, replaceContent, report, section } from "./dom.js";
import { DAY_MS, HOUR_MS, millis, plural, timeEl, utcIso } from "./format.js";
import { current } from "./session.js";

const STATUSES = [
  ["all", "All"],
  ["succeeded", "Succeeded"],
  ["failed", "Failed"],
  ["pending", "Retrying (pending)"],
  ["paused", "Paused"],
];

const WINDOWS = [
  ["1h", "Last hour", HOUR_MS],
  ["24h", "Last 24 hours", DAY_MS],
  ["7d", "Last 7 days", 7 * DAY_MS],
  ["30d", "Last 30 days", 30 * DAY_MS],
  ["all", "Any time", 0],
];

export function renderDeliveries(body, detail, seq) {
  const statusSel = h("select", { name: "status", "data-testid": "filter-status" }, STATUSES.map(([v, label]) => h("option", { value: v }, label)));
  const searchInput = h("input", { type: "search", name: "event", "data-testid": "search-event", autocomplete: "off", spellcheck: "false", placeholder: "evt_… or your own id" });
  const clearSearch = button("Show all", { class: "btn btn-secondary", type: "button", "data-testid": "search-clear", hidden: true }, () => {
    searchInput.value = "";
    load();
    statusSel.focus();
  });
  const windowSel = h("select", { name: "window", "data-testid": "filter-window" }, WINDOWS.map(([v, label]) => h("option", { value: v, selected: v === "7d" }, label)));
  const list = h("ul", { class: "delivery-list", "data-testid": "delivery-list", "aria-label": "Deliveries, newest first" });
  const status = h("div", { class: "list-status", "aria-live": "polite" });
  const moreWrap = h("div", { class: "more-wrap" });
  const filters = h("form", { class: "filters", "aria-label": "Filter deliveries" },
    field("filter-status", "Status", statusSel),
    field("filter-window", "Time window", windowSel),
  );
  filters.addEventListener("submit", (ev) => ev.preventDefault());
  const search = h("form", { class: "filters", role: "search", "aria-label": "Find a delivery by its event" },
    field("search-event", "Event id", searchInput),
    h("div", { class: "filter-actions" }, h("button", { type: "submit", class: "btn btn-primary", "data-testid": "search-submit" }, "Find"), clearSearch),
  );
  search.addEventListener("submit", (ev) => {
    ev.preventDefault();
    load();
  });
  body.append(
    section("Delivery log", "delivery-log",
      h("p", { class: "muted" }, "Every delivery to this endpoint once its first attempt is made, newest first: succeeded, failed for good, retrying, or paused while the endpoint is disabled. Find one by its event's id (evt_…) or the id it was sent with, even one not attempted yet. Open one to see each attempt and the headers it was sent with."),
      filters,
      search,
      status,
      list,
      moreWrap,
    ),
  );
  // A filter change restarts the list; an answer for an earlier filter is dropped (filter.live).
  let filter = { live: false };
  const load = () => {
    filter.live = false;
    clear(list);
    clear(moreWrap);
    list.removeAttribute("data-loaded");
    replaceContent(status, h("p", { class: "loading" }, "Loading deliveries…"));
    const span = WINDOWS.find(([v]) => v === windowSel.value);
    const event = searchInput.value.trim() || undefined;
    // A search looks at any time: the event names the delivery.
    const since = !event && span && span[2] ? utcIso(new Date(Date.now() - span[2])) : undefined;
    clearSearch.hidden = !event;
    filter = { live: true, status: statusSel.value, since, event };
    loadDeliveryPage(detail, filter, list, status, moreWrap, null, seq, false);
  };
  statusSel.addEventListener("change", load);
  windowSel.addEventListener("change", load);
  load();
}

// One page of the list, appended. `more`: the page was asked for with "More", which goes away, so focus moves to the
// first delivery the page added (or, with none, to the status saying so) rather than falling to <body>.
async function loadDeliveryPage(detail, filter, list, status, moreWrap, cursor, seq, more) {
  let page;
  try {
    page = await api("GET", `/v1/endpoints/${enc(detail.id)}/deliveries${query({ status: filter.status, since: filter.since, event: filter.event, order: "desc", limit: PAGE_SIZE, cursor })}`);
  } catch (e) {
    if (!e.expired && current(seq) && filter.live) replaceContent(status, errorBox(e.message, "deliveries-error"));
    busy(moreWrap.querySelector("button"), false);
    return;
  }
  if (!current(seq) || !filter.live) return;
  clear(status);
  const items = Array.isArray(page.items) ? page.items : [];
  if (!cursor && !items.length) status.append(h("p", { class: "empty", "data-testid": "deliveries-empty" }, emptyText(filter)));
  if (!cursor && filter.event && items.length) report(status, h("p", { class: "muted", "data-testid": "search-found" }, `The delivery of ${filter.event}:`));
  const rows = items.map(deliveryRow);
  list.append(...rows);
  list.setAttribute("data-loaded", "true");
  clear(moreWrap);
  if (page.next) {
    const next = button("More", { class: "btn btn-secondary", "data-testid": "deliveries-more" }, () => {
      const focused = document.activeElement === next;
      busy(next, true, "Loading…");
      loadDeliveryPage(detail, filter, list, status, moreWrap, page.next, seq, focused);
    });
    moreWrap.append(next);
  }
  if (more && rows.length) {
    rows[0].setAttribute("tabindex", "-1");
    rows[0].focus();
  } else if (more) {
    report(status, h("p", { class: "muted", "data-testid": "deliveries-end" }, "No more deliveries in this window."));
  }
}

function emptyText(filter) {
  const which = filter.status === "all" ? "" : `${(STATUSES.find(([v]) => v === filter.status) || [, filter.status])[1].toLowerCase()} `;
  if (filter.event) return `No ${which}delivery of ${filter.event} to this endpoint.`;
  return `No ${which}deliveries in this window.`;
}

function deliveryStatusBadge(s) {
  const cls = { succeeded: "badge-ok", failed: "badge-bad", paused: "badge-warn", pending: "badge-neutral" }[s] || "badge-neutral";
  return h("span", { class: `badge ${cls}`, "data-testid": "delivery-status" }, s);
}

let deliverySeq = 0;

function deliveryRow(d) {
  deliverySeq += 1;
  const panelId = `delivery-${deliverySeq}-attempts`;
  const attempts = h("div", { class: "attempts", id: panelId, hidden: true, "data-testid": "attempts" });
  const statusSlot = h("span", {}, deliveryStatusBadge(d.status));
  const rowResult = h("span", { class: "row-result" });
  const toggle = button("Attempts", { class: "btn btn-small btn-secondary", "aria-expanded": "false", "aria-controls": panelId, "data-testid": "expand-delivery" }, async () => {
    const open = toggle.getAttribute("aria-expanded") === "true";
    if (open) {
      attempts.hidden = true;
      toggle.setAttribute("aria-expanded", "false");
      return;
    }
    toggle.setAttribute("aria-expanded", "true");
    attempts.hidden = false;
    replaceContent(attempts, h("p", { class: "loading" }, "Loading attempts…"));
    try {
      const full = await api("GET", `/v1/events/${enc(d.event_id)}/deliveries/${enc(d.id)}`);
      replaceContent(attempts, attemptsTable(full));
      replaceContent(statusSlot, deliveryStatusBadge(full.status));
    } catch (e) {
      if (!e.expired) replaceContent(attempts, errorBox(e.message, "attempts-error"));
    }
  });
  // A paused or pending delivery will be attempted without a hand: retrying it is refused (409), so no button.
  const retry = d.status === "paused" || d.status === "pending" ? null : mutating(button("Retry", { class: "btn btn-small btn-primary", "data-testid": "retry-delivery" }, async () => {
    busy(retry, true, "Retrying…");
    clear(rowResult);
    try {
      const r = await api("POST", `/v1/events/${enc(d.event_id)}/deliveries/${enc(d.id)}/retry`);
      replaceContent(statusSlot, deliveryStatusBadge(r.status || "pending"));
      // The button goes (the delivery is queued again): focus moves to the message saying so.
      report(rowResult, h("span", { class: "ok-text", "data-testid": "retry-queued" }, "Retry queued"));
      retry.remove();
    } catch (e) {
      busy(retry, false);
      if (!e.expired) report(rowResult, h("span", { class: "error-text", role: "alert", "data-testid": "retry-error" }, e.message));
    }
  }));
  return h("li", { class: "delivery", "data-testid": "delivery-row", "data-delivery-id": d.id, "data-event-id": d.event_id },
    h("div", { class: "delivery-main" },
      h("div", { class: "delivery-when" }, timeEl(d.created_at, { "data-testid": "delivery-created" })),
      h("div", { class: "delivery-ids" }, h("span", { class: "mono small" }, d.event_id), h("span", { class: "mono small muted" }, d.id)),
      statusSlot,
      h("div", { class: "delivery-actions" }, toggle, retry, rowResult),
    ),
    attempts,
  );
}

function attemptsTable(full) {
  const attempts = Array.isArray(full.attempts) ? full.attempts : [];
  const head = h("p", { class: "muted" }, "Event type ", h("span", { class: "mono" }, full.event_type || "—"), ` · ${plural(attempts.length, "attempt", "attempts")}`);
  if (!attempts.length) return [head, h("p", { class: "muted" }, "No attempt has been made yet.")];
  const table = h("table", { class: "attempt-table", "data-testid": "attempt-table" },
    h("caption", { class: "sr-only" }, "Attempts of this delivery"),
    h("thead", {}, h("tr", {}, ["#", "Time", "Status", "Duration", "Trigger", "Error", "Response", "Headers sent"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, attempts.map((a) =>
      h("tr", { "data-testid": "attempt-row" },
        h("td", { "data-label": "#" }, String(a.number ?? "")),
        h("td", { "data-label": "Time" }, timeEl(a.at)),
        h("td", { "data-label": "Status", "data-testid": "attempt-status" }, a.status_code === null || a.status_code === undefined ? "—" : String(a.status_code)),
        h("td", { "data-label": "Duration" }, millis(a.duration_ms)),
        h("td", { "data-label": "Trigger" }, a.trigger || "scheduled"),
        h("td", { "data-label": "Error" }, a.error || a.reason || "—"),
        h("td", { "data-label": "Response" }, a.response_body ? h("pre", { class: "excerpt", "data-testid": "attempt-response" }, String(a.response_body)) : "—"),
        h("td", { "data-label": "Headers sent" }, headersSent(a.request_headers)),
      ),
    )),
  );
  return [head, h("div", { class: "table-scroll" }, table)];
}

// The headers an attempt was sent with (the API rebuilds them, the signature redacted), folded away until asked for.
function headersSent(headers) {
  const names = headers && typeof headers === "object" ? Object.keys(headers) : [];
  if (!names.length) return "—";
  return h("details", { class: "headers-sent", "data-testid": "attempt-headers" },
    h("summary", {}, plural(names.length, "header", "headers")),
    // Wrapped, never scrolled sideways (portal.css): nothing a keyboard would have to reach to read.
    h("pre", { class: "excerpt" }, names.map((n) => `${n}: ${headers[n]}`).join("\n")),
  );
}

