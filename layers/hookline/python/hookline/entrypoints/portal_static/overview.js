// The endpoints overview: a card per endpoint (paged) with its status, circuit, last day's success rate and p95,
// last error and backlog, flagged when it needs the customer's attention.

import { api, enc, PAGE_SIZE, query } from "./api.js";
import { busy, button, clear, errorBox, focusHeading, h, heading, metric, mutating, replaceContent } from "./dom.js";
import { circuitBadge, count, describeError, disabledReason, millis, percent, plural, statusBadge, timeEl, where } from "./format.js";
import { link } from "./nav.js";
import { current, producerName, state } from "./session.js";

// Why an endpoint needs the customer's attention, or [] when it does not.
function attentionReasons(detail) {
  const reasons = [];
  if (detail.status !== "active") reasons.push("disabled");
  const circuit = detail.health && detail.health.circuit;
  if (circuit && circuit.state && circuit.state !== "closed") reasons.push("circuit open");
  const backlog = detail.backlog || {};
  if (backlog.failed > 0) reasons.push(`${count(backlog.failed, backlog.more)} failed`);
  if (backlog.paused > 0) reasons.push(`${count(backlog.paused, backlog.more)} paused`);
  return reasons;
}

export function renderOverview(root, seq) {
  const list = h("ul", { class: "endpoint-list", "data-testid": "endpoint-list", "aria-label": "Endpoints" });
  const status = h("div", { class: "list-status" });
  const moreWrap = h("div", { class: "more-wrap" });
  const add = mutating(link("Add endpoint", { view: "new" }, { class: "btn btn-primary", id: "add-endpoint", "data-testid": "add-endpoint" }));
  root.append(
    h("div", { class: "view-head" }, h("div", {}, heading(1, "Endpoints"), h("p", { class: "lede" }, `Where ${producerName()} sends your webhooks, and how each one is doing over the last 24 hours.`)), add),
    status,
    list,
    moreWrap,
  );
  focusHeading(root);
  status.append(h("p", { class: "loading" }, "Loading endpoints…"));
  loadEndpointPage(list, status, moreWrap, null, seq, false);
}

// One page of cards, appended. `more`: asked for with "More endpoints", which goes away, so focus moves to the first
// card the page added rather than falling to <body>.
async function loadEndpointPage(list, status, moreWrap, cursor, seq, more) {
  let page;
  try {
    page = await api("GET", `/v1/endpoints${query({ limit: PAGE_SIZE, cursor })}`);
  } catch (e) {
    if (!e.expired && current(seq)) replaceContent(status, errorBox(e.message, "endpoints-error"));
    busy(moreWrap.querySelector("button"), false);
    return;
  }
  if (!current(seq)) return;
  clear(status);
  const items = Array.isArray(page.items) ? page.items : [];
  if (!cursor && items.length === 0) {
    status.append(
      h("div", { class: "empty", "data-testid": "endpoints-empty" },
        h("p", {}, "No endpoints yet."),
        state.readOnly ? h("p", { class: "muted" }, "Endpoints you add receive the events you subscribe them to.") : h("p", { class: "muted" }, "Add one to start receiving webhooks."),
      ),
    );
  }
  const cards = items.map((endpoint) => endpointCard(endpoint, seq));
  list.append(...cards);
  list.setAttribute("data-loaded", "true");
  clear(moreWrap);
  if (page.next) {
    const next = button("More endpoints", { class: "btn btn-secondary", "data-testid": "endpoints-more" }, () => {
      const focused = document.activeElement === next;
      busy(next, true, "Loading…");
      loadEndpointPage(list, status, moreWrap, page.next, seq, focused);
    });
    moreWrap.append(next);
  }
  if (more && cards.length) {
    cards[0].setAttribute("tabindex", "-1");
    cards[0].focus();
  }
}

function endpointCard(endpoint, seq) {
  const badges = h("div", { class: "badges" }, statusBadge(endpoint));
  const metrics = h("dl", { class: "metrics" },
    metric("Success rate (24 h)", [h("span", { "data-testid": "success-rate" }, "…"), h("span", { class: "metric-note", "data-testid": "success-attempts" })]),
    metric("p95 latency (24 h)", "…", "p95"),
    metric("Failed", "…", "failed-count"),
    metric("Paused", "…", "paused-count"),
    metric("Retrying", "…", "pending-count"),
  );
  const lastError = h("p", { class: "last-error", "data-testid": "last-error", hidden: true });
  const card = h("li", { class: "endpoint-card", "data-testid": "endpoint-card", "data-endpoint-id": endpoint.id },
    h("div", { class: "card-head" },
      h("h2", { class: "card-title" }, link(where(endpoint), { view: "endpoint", id: endpoint.id }, { class: "endpoint-url", "data-testid": "endpoint-link" })),
      badges,
    ),
    endpoint.description ? h("p", { class: "description", "data-testid": "endpoint-description" }, endpoint.description) : null,
    endpoint.status !== "active" ? h("p", { class: "disabled-reason", "data-testid": "disabled-reason" }, `Disabled because ${disabledReason(endpoint)}.`) : null,
    metrics,
    lastError,
    h("p", { class: "card-links" },
      link("Settings", { view: "endpoint", id: endpoint.id, tab: "settings" }),
      link("Delivery log", { view: "endpoint", id: endpoint.id, tab: "deliveries" }),
      link("Failures & replay", { view: "endpoint", id: endpoint.id, tab: "failures" }, { "data-testid": "failures-link" }),
    ),
  );
  fillCard(card, endpoint, badges, metrics, lastError, seq);
  return card;
}

async function fillCard(card, endpoint, badges, metrics, lastError, seq) {
  const base = `/v1/endpoints/${enc(endpoint.id)}`;
  let detail;
  let stats;
  try {
    [detail, stats] = await Promise.all([api("GET", base), api("GET", `${base}/stats`)]);
  } catch (e) {
    if (!e.expired && current(seq)) card.append(errorBox(e.message, "card-error"));
    return;
  }
  if (!current(seq)) return;
  const health = detail.health || {};
  badges.append(circuitBadge(health.circuit));
  const reasons = attentionReasons(detail);
  if (reasons.length) {
    card.classList.add("needs-attention");
    card.setAttribute("data-attention", "true");
    badges.prepend(h("span", { class: "badge badge-flag", "data-testid": "attention-flag", title: reasons.join(", ") }, "Needs attention"));
  }
  const set = (testid, value) => replaceContent(metrics.querySelector(`[data-testid="${testid}"]`), value);
  set("success-rate", stats.attempts ? percent(stats.succeeded / stats.attempts) : "no attempts");
  set("success-attempts", stats.attempts ? `of ${plural(stats.attempts, "attempt", "attempts")}` : "");
  set("p95", millis(stats.latency_ms && stats.latency_ms.p95));
  const backlog = detail.backlog || { failed: 0, paused: 0, pending: 0, more: false };
  set("failed-count", count(backlog.failed || 0, backlog.more));
  set("paused-count", count(backlog.paused || 0, backlog.more));
  set("pending-count", count(backlog.pending || 0, backlog.more));
  if (health.last_error) {
    replaceContent(lastError, h("span", { class: "label" }, "Last error "), timeEl(health.last_error_at), ": ", h("span", { class: "mono" }, describeError(health.last_error)));
    lastError.hidden = false;
  }
}
