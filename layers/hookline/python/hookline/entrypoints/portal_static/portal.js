// hookline's customer portal: plain ES2020, no framework, no build step.
//
// Safety contract: every value that comes from the API reaches the DOM through
// textContent or setAttribute (see h() and svg() below), never through
// innerHTML, so an endpoint description or a receiver's response body shows as
// characters. The page runs under a strict CSP (no inline script or style), so
// styling is by class names from portal.css only.
"use strict";

(() => {
  const TOKEN_KEY = "hookline.portal.token";
  const SVG_NS = "http://www.w3.org/2000/svg";
  const HOUR_MS = 3600 * 1000;
  const DAY_MS = 24 * HOUR_MS;
  const CHART_HOURS = 7 * 24;
  const PAGE_SIZE = 20;
  const REPLAY_POLL_MS = 1000;
  const REPLAY_POLL_LIMIT = 600; // ten minutes of polling, then the page stops asking and says so
  const JOB_POLL_MS = 2000;
  const JOB_POLL_LIMIT = 15; // thirty seconds of following a re-enable's re-queue; the job goes on without the page
  const ACTIVE_AGAIN = "The endpoint is active again";
  const EVENT_TYPE_PAGES = 20; // catalog pages the pick-list reads, at most

  const state = {
    token: null,
    session: null,
    readOnly: true, // until the session says otherwise: never show a mutating control by mistake
    eventTypes: null, // a promise of the producer's event types, fetched once
    renderSeq: 0, // bumped on every navigation, so a slow answer for a page left behind is dropped
    timers: new Set(),
  };

  // ---------------------------------------------------------------- DOM helpers

  // h("p", {class: "x", "data-testid": "y"}, "text", childNode): attributes by setAttribute, strings as text nodes.
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    applyAttrs(el, attrs);
    append(el, children);
    return el;
  }

  function svg(tag, attrs, ...children) {
    const el = document.createElementNS(SVG_NS, tag);
    applyAttrs(el, attrs);
    append(el, children);
    return el;
  }

  function applyAttrs(el, attrs) {
    if (!attrs) return;
    for (const [name, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (name.startsWith("on") && typeof value === "function") {
        el.addEventListener(name.slice(2).toLowerCase(), value);
      } else if (name === "text") {
        el.textContent = String(value);
      } else {
        el.setAttribute(name, value === true ? "" : String(value));
      }
    }
  }

  function append(el, children) {
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }

  function clear(el) {
    while (el.firstChild) el.removeChild(el.firstChild);
    return el;
  }

  function replaceContent(el, ...children) {
    clear(el);
    append(el, children);
    return el;
  }

  // A control that changes something. Read-only sessions never get one: callers return null instead.
  function mutating(node) {
    if (state.readOnly) return null;
    node.setAttribute("data-mutating", "");
    return node;
  }

  function button(label, attrs, onClick) {
    return h("button", { type: "button", class: "btn", ...attrs, onclick: onClick }, label);
  }

  function field(id, label, input, hint) {
    const hintId = hint ? `${id}-hint` : null;
    input.setAttribute("id", id);
    if (hintId) input.setAttribute("aria-describedby", hintId);
    return h(
      "div",
      { class: "field" },
      h("label", { for: id }, label),
      input,
      hint ? h("p", { class: "hint", id: hintId }, hint) : null,
    );
  }

  function busy(btn, on, busyLabel) {
    if (!btn) return;
    if (on) {
      btn.dataset.label = btn.textContent;
      btn.textContent = busyLabel || "Working…";
      btn.disabled = true;
      btn.setAttribute("aria-busy", "true");
    } else {
      btn.textContent = btn.dataset.label || btn.textContent;
      btn.disabled = false;
      btn.removeAttribute("aria-busy");
    }
  }

  function errorBox(message, testid) {
    return h("p", { class: "alert alert-error", role: "alert", "data-testid": testid || "error" }, message);
  }

  function okBox(message, testid) {
    return h("p", { class: "alert alert-ok", role: "status", "data-testid": testid || "ok" }, message);
  }

  // ---------------------------------------------------------------- formatting

  const fmtDateTime = new Intl.DateTimeFormat(undefined, {
    year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23",
  });
  const fmtClock = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  const fmtDay = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric" });
  const fmtDate = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "numeric" });
  const fmtWeekday = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric" });

  function utcIso(date) {
    return date.toISOString().replace(/\.\d{3}Z$/, "Z");
  }

  // A time in the browser's zone, the UTC ISO time on hover.
  function timeEl(iso, attrs) {
    if (!iso) return h("span", { class: "muted" }, "—");
    const date = new Date(iso);
    if (Number.isNaN(date.getTime())) return h("span", {}, String(iso));
    return h("time", { datetime: utcIso(date), title: `${utcIso(date)} (UTC)`, ...attrs }, fmtDateTime.format(date));
  }

  // A day in the browser's zone, the UTC ISO time on hover.
  function dateEl(iso, attrs) {
    const date = new Date(iso);
    if (Number.isNaN(date.getTime())) return h("span", {}, String(iso));
    return h("time", { datetime: utcIso(date), title: `${utcIso(date)} (UTC)`, ...attrs }, fmtDate.format(date));
  }

  function percent(rate) {
    if (rate === null || rate === undefined || Number.isNaN(rate)) return "—";
    const p = rate * 100;
    return `${p >= 99.95 || p === 0 ? p.toFixed(0) : p.toFixed(1)}%`;
  }

  function millis(ms) {
    if (ms === null || ms === undefined) return "—";
    return ms >= 1000 ? `${(ms / 1000).toFixed(ms >= 10000 ? 0 : 1)} s` : `${Math.round(ms)} ms`;
  }

  function plural(n, one, many) {
    return `${n.toLocaleString()} ${n === 1 ? one : many}`;
  }

  function count(n, more) {
    return more ? `${n.toLocaleString()}+` : n.toLocaleString();
  }

  // "between 14:00 and 16:00 on Aug 4", or "between 22:00 on Aug 4 and 02:00 on Aug 5".
  function windowPhrase(since, until) {
    const sameDay = fmtDay.format(since) === fmtDay.format(new Date(until.getTime() - 1));
    if (sameDay) return `between ${fmtClock.format(since)} and ${fmtClock.format(until)} on ${fmtDay.format(since)}`;
    return `between ${fmtClock.format(since)} on ${fmtDay.format(since)} and ${fmtClock.format(until)} on ${fmtDay.format(until)}`;
  }

  // <input type="datetime-local"> speaks the browser's zone as "YYYY-MM-DDTHH:MM".
  function toLocalInput(date) {
    const pad = (n) => String(n).padStart(2, "0");
    return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
  }

  function fromLocalInput(value) {
    if (!value) return null;
    const date = new Date(value); // a date-time without an offset is local time
    return Number.isNaN(date.getTime()) ? null : date;
  }

  function startOfHour(date) {
    const d = new Date(date.getTime());
    d.setUTCMinutes(0, 0, 0);
    return d;
  }

  const DISABLED_REASONS = {
    gone: "the endpoint answered 410 Gone",
    failing: "it kept failing for too long",
    manual: "it was disabled by request",
  };

  // The health's last_error is a status code ("503") or an error name ("timeout").
  function describeError(error) {
    const text = String(error);
    return /^\d{3}$/.test(text) ? `HTTP ${text}` : text;
  }

  function disabledReason(endpoint) {
    return DISABLED_REASONS[endpoint.disabled_reason] || (endpoint.disabled_reason ? String(endpoint.disabled_reason) : "no reason recorded");
  }

  // ---------------------------------------------------------------- API

  class ApiError extends Error {
    constructor(status, code, message, body) {
      super(message);
      this.status = status;
      this.code = code;
      this.body = body;
      this.expired = false;
    }
  }

  async function api(method, path, body) {
    const headers = { Authorization: `Bearer ${state.token}`, Accept: "application/json" };
    const init = { method, headers, credentials: "omit", cache: "no-store" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let res;
    try {
      res = await fetch(path, init);
    } catch (_) {
      throw new ApiError(0, "network", "The service could not be reached. Check your connection and try again.", null);
    }
    if (res.status === 204) return null;
    let data = null;
    try {
      data = await res.json();
    } catch (_) {
      data = null;
    }
    if (res.ok) {
      if (data === null) throw new ApiError(res.status, "malformed_answer", "The service sent an answer the page could not read. Try again.", null);
      return data;
    }
    const envelope = data && typeof data === "object" ? data.error : null;
    const message = (envelope && envelope.message) || (data && data.message) || `The request failed (HTTP ${res.status}).`;
    const error = new ApiError(res.status, envelope ? envelope.code : "", String(message), data);
    // 401: the session is expired, revoked or unknown. A 403 without our envelope is the gateway's authorizer saying no.
    if (res.status === 401 || (res.status === 403 && !envelope)) {
      error.expired = true;
      showExpired();
    }
    throw error;
  }

  function query(params) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, v);
    const s = q.toString();
    return s ? `?${s}` : "";
  }

  const enc = encodeURIComponent;

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
    if (!state.eventTypes) {
      state.eventTypes = loadEventTypes().catch((e) => {
        state.eventTypes = null; // try again next time
        if (e.expired) throw e;
        return [];
      });
    }
    return state.eventTypes;
  }

  // ---------------------------------------------------------------- session and routing

  function producerName() {
    const fromPage = (document.body.dataset.producer || "").trim();
    if (fromPage) return fromPage;
    const fromSession = state.session && typeof state.session.producer_name === "string" ? state.session.producer_name.trim() : "";
    return fromSession || "your provider";
  }

  function readToken() {
    const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    if (match) {
      // Drop the token from the address bar (and so from history and bookmarks) first, whatever follows; keep it for this tab only.
      history.replaceState(null, "", location.pathname + location.search);
      let token;
      try {
        token = decodeURIComponent(match[1]);
      } catch (_) {
        return null; // a link mangled on the way (e.g. by a mail client): treated as no link
      }
      try {
        sessionStorage.setItem(TOKEN_KEY, token);
      } catch (_) {
        /* storage blocked (e.g. a sandboxed iframe): the token lives in memory for this page */
      }
      return token;
    }
    try {
      return sessionStorage.getItem(TOKEN_KEY);
    } catch (_) {
      return null;
    }
  }

  function forgetToken() {
    state.token = null;
    try {
      sessionStorage.removeItem(TOKEN_KEY);
    } catch (_) {
      /* nothing stored */
    }
  }

  function route() {
    const params = new URLSearchParams(location.search);
    return { view: params.get("view") || "endpoints", id: params.get("id") || "", tab: params.get("tab") || "settings" };
  }

  function hrefFor(params) {
    const q = new URLSearchParams(location.search);
    for (const key of ["view", "id", "tab"]) q.delete(key);
    for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
    return `${location.pathname}?${q.toString()}`;
  }

  function navigate(params, options) {
    const url = hrefFor(params);
    if (options && options.replace) history.replaceState(null, "", url);
    else history.pushState(null, "", url);
    render();
  }

  // An in-page link: a real <a href> (middle-click, copy link), handled without a reload.
  function link(label, params, attrs) {
    return h("a", {
      href: hrefFor(params),
      ...attrs,
      onclick: (ev) => {
        if (ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
        ev.preventDefault();
        navigate(params);
      },
    }, label);
  }

  function stopTimers() {
    for (const t of state.timers) clearTimeout(t);
    state.timers.clear();
  }

  function later(fn, ms) {
    const t = setTimeout(() => {
      state.timers.delete(t);
      fn();
    }, ms);
    state.timers.add(t);
  }

  function viewRoot() {
    return document.getElementById("view");
  }

  let pendingNotice = null;

  function notice(message) {
    const box = document.getElementById("notice");
    if (!message) {
      box.hidden = true;
      box.textContent = "";
      return;
    }
    box.textContent = message;
    box.hidden = false;
  }

  // Every navigation starts here; a view's heading takes focus so keyboard and screen-reader users land on it.
  function render() {
    stopTimers();
    state.renderSeq += 1;
    const seq = state.renderSeq;
    notice(pendingNotice);
    pendingNotice = null;
    const r = route();
    const root = clear(viewRoot());
    if (r.view === "endpoint" && r.id) renderEndpoint(root, r.id, r.tab, seq);
    else if (r.view === "new" && !state.readOnly) renderCreate(root);
    else renderOverview(root, seq);
  }

  function current(seq) {
    return seq === state.renderSeq;
  }

  function heading(level, text, attrs) {
    return h(`h${level}`, { tabindex: "-1", class: "view-title", ...attrs }, text);
  }

  let firstRender = true;

  // The first view keeps the browser's own focus (the top of the page); later ones move it to their heading.
  function focusHeading(root) {
    if (firstRender) {
      firstRender = false;
      return;
    }
    const title = root.querySelector(".view-title");
    if (title && document.activeElement !== title && !root.contains(document.activeElement)) title.focus({ preventScroll: false });
  }

  function showExpired() {
    stopTimers();
    state.renderSeq += 1;
    forgetToken();
    document.getElementById("session-info").hidden = true;
    notice(null);
    const producer = producerName();
    const root = clear(viewRoot());
    root.append(
      h(
        "section",
        { class: "expired", "data-testid": "expired" },
        h("div", { class: "expired-icon", "aria-hidden": "true" }),
        heading(1, "This link has expired"),
        h("p", { class: "expired-message", "data-testid": "expired-message" }, `This link has expired; ask ${producer} for a new one.`),
        h("p", { class: "muted" }, "Portal links work for a limited time and can be withdrawn. Your endpoints keep receiving webhooks meanwhile."),
      ),
    );
    document.title = "Link expired";
    root.querySelector(".view-title").focus();
  }

  function showFatal(message) {
    const root = clear(viewRoot());
    root.append(h("section", { class: "panel" }, heading(1, "The portal could not load"), errorBox(message, "fatal-error"), button("Try again", { class: "btn btn-primary" }, () => location.reload())));
  }

  function renderSessionInfo(session) {
    const customer = session.customer || {};
    document.getElementById("customer-name").textContent = customer.name || customer.uid || "";
    document.getElementById("read-only-badge").hidden = !session.read_only;
    const expiry = document.getElementById("session-expiry");
    if (session.expires_at) replaceContent(expiry, "Link valid until ", timeEl(session.expires_at));
    else clear(expiry);
    document.getElementById("session-info").hidden = false;
  }

  async function boot() {
    document.getElementById("producer-name").textContent = producerName() === "your provider" ? "Webhooks" : producerName();
    window.addEventListener("popstate", () => {
      if (state.session) render();
    });
    state.token = readToken();
    if (!state.token) {
      showExpired();
      return;
    }
    let session;
    try {
      session = await api("GET", "/v1/session");
    } catch (e) {
      // A session whose customer was deleted meanwhile answers 404: for the customer that is an ended link.
      if (!e.expired && e.status === 404) showExpired();
      else if (!e.expired) showFatal(e.message);
      return;
    }
    const named = new URLSearchParams(location.search).get("t");
    if (session.tenant && named !== session.tenant) {
      // The page's name and embedding policy are the link's tenant's: show the session's own (the token stays in this tab).
      location.replace(`${location.pathname}?t=${enc(session.tenant)}`);
      return;
    }
    state.session = session;
    state.readOnly = session.read_only !== false;
    const name = producerName();
    document.getElementById("producer-name").textContent = name === "your provider" ? "Webhooks" : name;
    document.title = name === "your provider" ? "Webhooks" : `Webhooks · ${name}`;
    document.body.classList.toggle("read-only", state.readOnly);
    renderSessionInfo(session);
    render();
  }

  function ceiling() {
    const limits = (state.session && state.session.customer && state.session.customer.limits) || {};
    return { rate: limits.max_rate_per_second, concurrency: limits.max_concurrency };
  }

  // ---------------------------------------------------------------- badges

  function statusBadge(endpoint) {
    const active = endpoint.status === "active";
    return h("span", { class: `badge ${active ? "badge-ok" : "badge-bad"}`, "data-testid": "status-badge" }, active ? "Active" : "Disabled");
  }

  function circuitBadge(circuit) {
    const s = (circuit && circuit.state) || "closed";
    const cls = { closed: "badge-ok", open: "badge-bad", half_open: "badge-warn" }[s] || "badge-neutral";
    const label = { closed: "Circuit closed", open: "Circuit open", half_open: "Circuit half-open" }[s] || `Circuit ${s}`;
    const title = { closed: "Deliveries flow normally.", open: "Deliveries are paused after repeated failures; they resume after a cool-down.", half_open: "A trial delivery is testing whether the endpoint recovered." }[s];
    return h("span", { class: `badge ${cls}`, "data-testid": "circuit-badge", "data-state": s, title }, label);
  }

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

  // ---------------------------------------------------------------- endpoints overview

  function renderOverview(root, seq) {
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
    loadEndpointPage(list, status, moreWrap, null, seq);
  }

  async function loadEndpointPage(list, status, moreWrap, cursor, seq) {
    let page;
    try {
      page = await api("GET", `/v1/endpoints${query({ limit: PAGE_SIZE, cursor })}`);
    } catch (e) {
      if (!e.expired && current(seq)) replaceContent(status, errorBox(e.message, "endpoints-error"));
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
    for (const endpoint of items) list.append(endpointCard(endpoint, seq));
    list.setAttribute("data-loaded", "true");
    clear(moreWrap);
    if (page.next) {
      const more = button("More endpoints", { class: "btn btn-secondary", "data-testid": "endpoints-more" }, () => {
        more.remove();
        loadEndpointPage(list, status, moreWrap, page.next, seq);
      });
      moreWrap.append(more);
    }
  }

  function metric(label, valueNode, testid) {
    return h("div", { class: "metric" }, h("dt", {}, label), h("dd", { "data-testid": testid }, valueNode));
  }

  function endpointCard(endpoint, seq) {
    const badges = h("div", { class: "badges" }, statusBadge(endpoint));
    const metrics = h("dl", { class: "metrics" },
      metric("Success rate (24 h)", "…", "success-rate"),
      metric("p95 latency (24 h)", "…", "p95"),
      metric("Failed", "…", "failed-count"),
      metric("Paused", "…", "paused-count"),
    );
    const lastError = h("p", { class: "last-error", "data-testid": "last-error", hidden: true });
    const card = h("li", { class: "endpoint-card", "data-testid": "endpoint-card", "data-endpoint-id": endpoint.id },
      h("div", { class: "card-head" },
        h("h2", { class: "card-title" }, link(endpoint.url, { view: "endpoint", id: endpoint.id }, { class: "endpoint-url", "data-testid": "endpoint-link" })),
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
    set("p95", millis(stats.latency_ms && stats.latency_ms.p95));
    const backlog = detail.backlog || { failed: 0, paused: 0, more: false };
    set("failed-count", count(backlog.failed || 0, backlog.more));
    set("paused-count", count(backlog.paused || 0, backlog.more));
    if (health.last_error) {
      replaceContent(lastError, h("span", { class: "label" }, "Last error "), timeEl(health.last_error_at), ": ", h("span", { class: "mono" }, describeError(health.last_error)));
      lastError.hidden = false;
    }
  }

  // ---------------------------------------------------------------- endpoint detail

  const TABS = [
    ["settings", "Settings"],
    ["deliveries", "Delivery log"],
    ["failures", "Failures & replay"],
  ];

  async function renderEndpoint(root, id, tab, seq) {
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
      heading(1, detail.url, { class: "view-title endpoint-url", "data-testid": "endpoint-title" }),
      h("div", { class: "badges" }, statusBadge(detail), circuitBadge(detail.health && detail.health.circuit)),
      detail.description ? h("p", { class: "description", "data-testid": "endpoint-description" }, detail.description) : null,
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

  // -- settings tab

  function renderSettings(body, detail, seq) {
    const measured = h("div", { class: "measured", "data-testid": "measured", "aria-live": "polite" }, h("span", { class: "muted" }, "Measuring…"));
    append(body, [
      statusSection(detail),
      versionSection(detail, seq),
      configSection(detail, measured),
      healthSection(detail),
      secretSection(detail),
      state.readOnly ? null : testSection(detail),
      state.readOnly ? null : deleteSection(detail),
    ]);
    api("GET", `/v1/endpoints/${enc(detail.id)}/stats`).then(
      (stats) => {
        if (!current(seq)) return;
        replaceContent(measured,
          h("p", { class: "measured-title" }, "Measured over the last 24 hours"),
          h("dl", { class: "metrics compact" },
            metric("Success rate", stats.attempts ? `${percent(stats.succeeded / stats.attempts)} of ${plural(stats.attempts, "attempt", "attempts")}` : "no attempts yet", "measured-success-rate"),
            metric("p95 latency", millis(stats.latency_ms && stats.latency_ms.p95), "measured-p95"),
            metric("Now sending at", `${(detail.health && detail.health.effective_rate_per_second) ?? "—"}/s`, "measured-effective-rate"),
          ),
        );
      },
      (e) => {
        if (!e.expired && current(seq)) replaceContent(measured, errorBox(e.message, "stats-error"));
      },
    );
  }

  function section(title, testid, ...children) {
    const id = `section-${testid}`;
    return h("section", { class: "panel", "data-testid": testid, "aria-labelledby": id }, h("h2", { id }, title), ...children);
  }

  function statusSection(detail) {
    if (detail.status === "active") return null;
    const result = h("div", { class: "result", "data-testid": "enable-result", "aria-live": "polite" });
    const enableBtn = mutating(button("Re-enable endpoint", { class: "btn btn-primary", id: "enable-endpoint", "data-testid": "enable-endpoint" }, async () => {
      busy(enableBtn, true, "Sending a test event…");
      clear(result);
      try {
        const answer = await api("POST", `/v1/endpoints/${enc(detail.id)}/enable`);
        const job = answer && answer.requeue && typeof answer.requeue.id === "string" ? answer.requeue : null;
        pendingNotice = job ? `${ACTIVE_AGAIN}; its paused deliveries are being re-queued.` : `${ACTIVE_AGAIN}.`;
        navigate({ view: "endpoint", id: detail.id, tab: "settings" }, { replace: true });
        if (job) trackRequeue(job.id, state.renderSeq);
      } catch (e) {
        if (e.expired) return;
        busy(enableBtn, false);
        const attempt = (e.body && e.body.error && e.body.error.attempt) || null;
        replaceContent(result, errorBox(e.message, "enable-error"), attempt ? attemptSummary(attempt) : null);
      }
    }));
    return h("section", { class: "panel panel-alert", "data-testid": "disabled-panel", "aria-labelledby": "disabled-title" },
      h("h2", { id: "disabled-title" }, "This endpoint is disabled"),
      h("p", { "data-testid": "disabled-reason" }, `It was disabled because ${disabledReason(detail)}. Events for it are kept as paused deliveries.`),
      state.readOnly ? null : h("p", { class: "muted" }, "Re-enabling sends a test event first. If your endpoint answers with a 2xx status it becomes active again and its paused deliveries are sent at its rate limit."),
      enableBtn,
      result,
    );
  }

  // After a re-enable, the notice follows the job that re-queues the paused backlog (a page at a time, at the
  // endpoint's rate): every 2 s, for at most 30 s, or until the page moves on. A failed poll leaves the notice as it is.
  function trackRequeue(id, seq) {
    let polls = 0;
    const poll = async () => {
      polls += 1;
      let job;
      try {
        job = await api("GET", `/v1/jobs/${enc(id)}`);
      } catch (e) {
        if (!e.expired && current(seq) && polls < JOB_POLL_LIMIT) later(poll, JOB_POLL_MS);
        return;
      }
      if (!current(seq)) return;
      const counted = Number(job && job.counts && job.counts.requeued);
      const n = Number.isFinite(counted) && counted > 0 ? counted : 0;
      const deliveries = plural(n, "paused delivery", "paused deliveries");
      if (job.status === "done") {
        notice(n ? `${ACTIVE_AGAIN}; ${deliveries} re-queued, done.` : `${ACTIVE_AGAIN}; it had no paused deliveries to re-queue.`);
      } else if (job.status === "cancelled") {
        const why = typeof job.note === "string" && job.note ? `: ${job.note}` : "";
        notice(`${ACTIVE_AGAIN}, but re-queueing its paused deliveries stopped after ${deliveries}${why}.`);
      } else if (polls < JOB_POLL_LIMIT) {
        notice(`${ACTIVE_AGAIN}; its paused deliveries are being re-queued: ${n.toLocaleString()} so far.`);
        later(poll, JOB_POLL_MS);
      } else {
        notice(`${ACTIVE_AGAIN}; ${deliveries} re-queued so far, the rest follow at its rate limit.`);
      }
    };
    later(poll, JOB_POLL_MS);
  }

  // -- payload version

  function pastSunset(version, now) {
    if (!version.sunset_at) return false;
    const at = new Date(version.sunset_at).getTime();
    return !Number.isNaN(at) && at <= now;
  }

  // What an upgrade offers: the tenant's default when it is newer than the pin, else the newest newer version
  // not past its sunset (a version past its sunset cannot be pinned); null when there is none.
  function upgradeTarget(pinned, versions, now) {
    const newer = versions.items.filter((v) => v.version > pinned && !pastSunset(v, now));
    if (!newer.length) return null;
    return newer.find((v) => v.version === versions.default) || newer.reduce((a, b) => (b.version > a.version ? b : a));
  }

  // " — deprecated, sunset on Mar 1, 2027", " — sunset passed on …", " (latest)", " (the default)" or nothing.
  function pinState(pinned, versions, now) {
    const entry = versions.items.find((v) => v.version === pinned);
    if (entry && pastSunset(entry, now)) {
      return h("span", { class: "bad-text", "data-state": "sunset" }, " — sunset passed on ", dateEl(entry.sunset_at), "; it can no longer be pinned");
    }
    if (entry && (entry.deprecated || entry.sunset_at)) {
      return h("span", { class: "warn-text", "data-state": "deprecated" }, " — deprecated", entry.sunset_at ? [", sunset on ", dateEl(entry.sunset_at)] : null);
    }
    if (!versions.items.some((v) => v.version > pinned)) return h("span", { "data-state": "latest" }, " (latest)");
    if (pinned === versions.default) return h("span", { "data-state": "default" }, " (the default)");
    return null;
  }

  function publicVersions(answer) {
    const items = (Array.isArray(answer && answer.items) ? answer.items : []).filter((v) => v && typeof v.version === "string");
    const flagged = items.find((v) => v.default === true);
    const byName = answer && typeof answer.default === "string" ? answer.default : "";
    return { default: byName || (flagged ? flagged.version : ""), items };
  }

  function versionSection(detail, seq) {
    if (typeof detail.version !== "string" || !detail.version) return null;
    const pinned = detail.version;
    const stateSlot = h("span", { "data-testid": "version-state" });
    const offer = h("div", { class: "version-offer", "data-testid": "version-offer", "aria-live": "polite" });
    const result = h("div", { class: "result", "data-testid": "upgrade-result", "aria-live": "polite" });
    const panel = section("Payload version", "payload-version",
      h("p", { class: "version-line", "data-testid": "version-line" }, "Pinned to ", h("span", { class: "mono strong", "data-testid": "pinned-version" }, pinned), stateSlot),
      h("p", { class: "muted" }, "Webhooks to this endpoint carry their data in this version's shape; each webhook's version field names it."),
      offer,
      result,
    );
    api("GET", "/v1/versions").then(
      (answer) => {
        if (!current(seq)) return;
        const versions = publicVersions(answer);
        const now = Date.now();
        replaceContent(stateSlot, pinState(pinned, versions, now));
        const entry = versions.items.find((v) => v.version === pinned);
        if (entry && (entry.deprecated || entry.sunset_at)) panel.classList.add(pastSunset(entry, now) ? "panel-alert" : "panel-warn");
        const target = upgradeTarget(pinned, versions, now);
        if (target) replaceContent(offer, upgradeOffer(detail, pinned, target.version, result));
      },
      (e) => {
        if (!e.expired && current(seq)) replaceContent(offer, errorBox(e.message, "versions-error"));
      },
    );
    return panel;
  }

  function upgradeOffer(detail, pinned, target, result) {
    const upgrade = mutating(button(`Upgrade to ${target}`, { class: "btn btn-primary", id: "upgrade-version", "data-testid": "upgrade-version", "data-version": target }, async () => {
      const ok = await confirmDialog(
        `Upgrade to version ${target}?`,
        `A signed hookline.test event rendered at version ${target} is sent to ${detail.url} first. If your endpoint answers with a 2xx status, it is pinned to ${target} and its webhooks carry that version's payloads from then on; otherwise it stays on ${pinned}.`,
        "Send test and upgrade",
      );
      if (!ok) return;
      busy(upgrade, true, "Sending a test event…");
      clear(result);
      try {
        const updated = await api("PATCH", `/v1/endpoints/${enc(detail.id)}`, { version: target });
        pendingNotice = `Your endpoint accepted the test event and is now pinned to version ${(updated && updated.version) || target}.`;
        navigate({ view: "endpoint", id: detail.id, tab: "settings" }, { replace: true });
      } catch (e) {
        if (e.expired) return;
        busy(upgrade, false);
        const attempt = (e.body && e.body.error && e.body.error.attempt) || null;
        if (e.status === 424 || e.code === "test_event_failed") {
          replaceContent(result,
            errorBox(`Your endpoint did not accept the test event at version ${target}, so it stays pinned to ${pinned}.`, "upgrade-error"),
            attempt ? attemptSummary(attempt) : null,
          );
        } else {
          replaceContent(result, errorBox(e.message, "upgrade-error"));
        }
      }
    }));
    if (!upgrade) return h("p", { class: "muted", "data-testid": "upgrade-available" }, "Version ", h("span", { class: "mono" }, target), " is available.");
    return [
      h("p", { class: "hint" }, "Upgrading sends a test event at the new version first; the endpoint moves only if it accepts it."),
      h("div", { class: "actions" }, upgrade),
    ];
  }

  function attemptSummary(attempt) {
    const items = [
      ["Status", attempt.status_code === null || attempt.status_code === undefined ? "no response" : String(attempt.status_code)],
      ["Duration", millis(attempt.duration_ms)],
    ];
    if (attempt.error) items.push(["Error", String(attempt.error)]);
    if (attempt.detail) items.push(["Detail", String(attempt.detail)]);
    return h("dl", { class: "kv", "data-testid": "attempt-summary" }, items.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
  }

  function eventTypePicker(idPrefix, selected) {
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

  function numberValue(input) {
    const raw = input.value.trim();
    if (raw === "") return undefined;
    const n = Number(raw);
    return Number.isFinite(n) ? n : NaN;
  }

  function configSection(detail, measured) {
    const types = detail.event_types && detail.event_types.length ? detail.event_types.join(", ") : "every event type";
    const limits = ceiling();
    if (state.readOnly) {
      return section("Configuration", "config",
        h("dl", { class: "kv" },
          h("dt", {}, "URL"), h("dd", { class: "mono" }, detail.url),
          h("dt", {}, "Description"), h("dd", {}, detail.description || "—"),
          h("dt", {}, "Event types"), h("dd", { class: "mono" }, types),
          h("dt", {}, "Rate limit"), h("dd", { "data-testid": "rate-limit-value" }, `${detail.rate_limit_per_second} per second`),
          h("dt", {}, "Max concurrency"), h("dd", {}, `${detail.max_concurrency} at a time`),
        ),
        measured,
      );
    }
    const url = h("input", { type: "url", name: "url", value: detail.url, required: true, autocomplete: "off", spellcheck: "false" });
    const description = h("input", { type: "text", name: "description", value: detail.description || "", maxlength: "500" });
    const picker = eventTypePicker("edit", detail.event_types);
    const rate = h("input", { type: "number", name: "rate_limit_per_second", value: detail.rate_limit_per_second, min: "0.1", step: "any", inputmode: "decimal" });
    const concurrency = h("input", { type: "number", name: "max_concurrency", value: detail.max_concurrency, min: "1", step: "1", inputmode: "numeric" });
    const result = h("div", { class: "result", "data-testid": "settings-result", "aria-live": "polite" });
    const save = h("button", { type: "submit", class: "btn btn-primary", id: "save-settings", "data-testid": "save-settings" }, "Save changes");
    mutating(save);
    const form = h("form", { class: "form", id: "settings-form", novalidate: true, "data-mutating": "" },
      field("edit-url", "URL", url, "Where webhooks are sent (HTTPS)."),
      field("edit-description", "Description", description),
      picker.node,
      h("div", { class: "pace" },
        h("div", { class: "pace-inputs" },
          field("edit-rate", "Rate limit (per second)", rate, limits.rate !== undefined ? `Up to ${limits.rate} per second on your plan.` : null),
          field("edit-concurrency", "Max concurrency", concurrency, limits.concurrency !== undefined ? `Up to ${limits.concurrency} at a time on your plan.` : null),
        ),
        measured,
      ),
      h("div", { class: "actions" }, save),
      result,
    );
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      clear(result);
      const changes = {};
      if (url.value.trim() !== detail.url) changes.url = url.value.trim();
      if (description.value !== (detail.description || "")) changes.description = description.value;
      const newTypes = picker.value();
      const oldTypes = detail.event_types || [];
      if (newTypes.length !== oldTypes.length || newTypes.some((t) => !oldTypes.includes(t))) changes.event_types = newTypes;
      const r = numberValue(rate);
      const c = numberValue(concurrency);
      if (Number.isNaN(r) || Number.isNaN(c)) {
        result.append(errorBox("Rate limit and max concurrency must be numbers.", "settings-error"));
        return;
      }
      if (r !== undefined && r !== detail.rate_limit_per_second) changes.rate_limit_per_second = r;
      if (c !== undefined && c !== detail.max_concurrency) changes.max_concurrency = c;
      if (!Object.keys(changes).length) {
        result.append(okBox("Nothing to save: no field changed.", "settings-saved"));
        return;
      }
      busy(save, true, "Saving…");
      try {
        const updated = await api("PATCH", `/v1/endpoints/${enc(detail.id)}`, changes);
        Object.assign(detail, updated);
        result.append(okBox("Saved.", "settings-saved"));
      } catch (e) {
        if (!e.expired) result.append(errorBox(e.message, "settings-error"));
      } finally {
        busy(save, false);
      }
    });
    return section("Configuration", "config", form);
  }

  function healthSection(detail) {
    const health = detail.health || {};
    const circuit = health.circuit || {};
    const rows = [
      ["Circuit", circuitBadge(circuit)],
      ["Consecutive failures", String(circuit.consecutive_failures ?? 0)],
      ["Recent success rate", `${percent(health.success_rate)} of the last 100 attempts`],
    ];
    if (circuit.open_until) rows.push(["Paused until", timeEl(circuit.open_until)]);
    if (health.last_error) rows.push(["Last error", h("span", {}, timeEl(health.last_error_at), " ", h("span", { class: "mono", "data-testid": "health-last-error" }, describeError(health.last_error)))]);
    // The last email about this endpoint: shown only when it did not go out (its error is a code, e.g. MessageRejected).
    const email = health.last_email;
    if (email && email.outcome === "failed") rows.push(["Last email", h("span", {}, timeEl(email.at), " not sent: ", h("span", { class: "mono", "data-testid": "health-last-email" }, String(email.error || "error")))]);
    const backlog = detail.backlog;
    if (backlog) {
      rows.push(["Failed deliveries", count(backlog.failed || 0, backlog.more)]);
      rows.push(["Paused deliveries", count(backlog.paused || 0, backlog.more)]);
    }
    return section("Health", "health", h("dl", { class: "kv" }, rows.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])));
  }

  function secretSection(detail) {
    const shown = h("div", { class: "secret-box", "data-testid": "secret-box", "aria-live": "polite" });
    const reveal = button("Reveal secret", { class: "btn btn-secondary", id: "reveal-secret", "data-testid": "reveal-secret", "aria-expanded": "false" }, async () => {
      if (reveal.getAttribute("aria-expanded") === "true") {
        clear(shown);
        reveal.textContent = "Reveal secret";
        reveal.setAttribute("aria-expanded", "false");
        return;
      }
      busy(reveal, true, "Loading…");
      try {
        const s = await api("GET", `/v1/endpoints/${enc(detail.id)}/secret`);
        busy(reveal, false);
        replaceContent(shown,
          h("p", { class: "secret-label" }, "Current secret"),
          h("code", { class: "secret", "data-testid": "secret-value" }, s.secret),
          s.previous_secret ? h("p", { class: "muted" }, "The previous secret ", h("code", { class: "secret small", "data-testid": "previous-secret" }, s.previous_secret), " also signs until ", timeEl(s.previous_expires_at), ".") : null,
        );
        reveal.textContent = "Hide secret";
        reveal.setAttribute("aria-expanded", "true");
      } catch (e) {
        busy(reveal, false);
        if (!e.expired) replaceContent(shown, errorBox(e.message, "secret-error"));
      }
    });
    const rotated = h("div", { class: "result", "data-testid": "rotate-result", "aria-live": "polite" });
    const rotate = mutating(button("Rotate secret", { class: "btn btn-secondary", id: "rotate-secret", "data-testid": "rotate-secret" }, async () => {
      const ok = await confirmDialog("Rotate the signing secret?", "A new secret signs every webhook from now on. The current one keeps signing too for a while, so you can update your receiver without dropping anything.", "Rotate secret");
      if (!ok) return;
      busy(rotate, true, "Rotating…");
      clear(rotated);
      try {
        const r = await api("POST", `/v1/endpoints/${enc(detail.id)}/secret/rotate`);
        clear(shown);
        reveal.textContent = "Reveal secret";
        reveal.setAttribute("aria-expanded", "false");
        rotated.append(
          h("div", { class: "alert alert-ok", role: "status" },
            h("p", { class: "strong" }, "New secret (shown once — copy it now):"),
            h("code", { class: "secret", "data-testid": "rotated-secret" }, r.secret),
            h("p", { "data-testid": "rotate-explanation" },
              "Until ", timeEl(r.previous_secret_valid_until), " every webhook carries two signatures, one with the new secret and one with the old, in its webhook-signature header. ",
              "Switch your receiver to the new secret before then; after that only the new secret signs."),
          ),
        );
      } catch (e) {
        if (!e.expired) rotated.append(errorBox(e.message, "rotate-error"));
      } finally {
        busy(rotate, false);
      }
    }));
    return section("Signing secret", "secret",
      h("p", { class: "muted" }, "Verify each webhook's webhook-signature header with this secret (Standard Webhooks)."),
      h("div", { class: "actions" }, reveal, rotate),
      shown,
      rotated,
    );
  }

  function testSection(detail) {
    const result = h("div", { class: "result", "data-testid": "test-result", "aria-live": "polite" });
    const send = mutating(button("Send test event", { class: "btn btn-secondary", id: "send-test", "data-testid": "send-test" }, async () => {
      busy(send, true, "Sending…");
      clear(result);
      try {
        const r = await api("POST", `/v1/endpoints/${enc(detail.id)}/test`);
        result.append(
          h("div", { class: `alert ${r.succeeded ? "alert-ok" : "alert-error"}`, "data-testid": "test-outcome", "data-succeeded": String(!!r.succeeded) },
            h("p", { class: "strong" }, r.succeeded ? "Your endpoint accepted the test event." : "Your endpoint did not accept the test event."),
            h("dl", { class: "kv" },
              h("dt", {}, "Status"), h("dd", { "data-testid": "test-status" }, r.status_code === null || r.status_code === undefined ? "no response" : String(r.status_code)),
              h("dt", {}, "Duration"), h("dd", { "data-testid": "test-duration" }, millis(r.duration_ms)),
              r.error ? [h("dt", {}, "Error"), h("dd", {}, String(r.error))] : null,
            ),
            h("p", { class: "excerpt-label" }, "Response body"),
            h("pre", { class: "excerpt", "data-testid": "test-response" }, r.response_body ? String(r.response_body) : "(empty)"),
          ),
        );
      } catch (e) {
        if (!e.expired) result.append(errorBox(e.message, "test-error"));
      } finally {
        busy(send, false);
      }
    }));
    return section("Test event", "test",
      h("p", { class: "muted" }, "Sends a signed hookline.test event to this endpoint now. Nothing is stored and the endpoint's health does not change."),
      send,
      result,
    );
  }

  function deleteSection(detail) {
    const result = h("div", { class: "result", "aria-live": "polite" });
    const del = mutating(button("Delete endpoint", { class: "btn btn-danger", id: "delete-endpoint", "data-testid": "delete-endpoint" }, async () => {
      const ok = await confirmDialog("Delete this endpoint?", `${detail.url} stops receiving webhooks at once. This cannot be undone.`, "Delete endpoint");
      if (!ok) return;
      busy(del, true, "Deleting…");
      try {
        await api("DELETE", `/v1/endpoints/${enc(detail.id)}`);
        pendingNotice = `Deleted ${detail.url}.`;
        navigate({}, { replace: true });
      } catch (e) {
        busy(del, false);
        if (!e.expired) replaceContent(result, errorBox(e.message, "delete-error"));
      }
    }));
    return h("section", { class: "panel panel-danger", "data-testid": "danger", "aria-labelledby": "danger-title" },
      h("h2", { id: "danger-title" }, "Delete"),
      h("p", { class: "muted" }, "Deleting an endpoint stops its webhooks at once; deliveries not yet made are dropped."),
      del,
      result,
    );
  }

  // The shared <dialog>: resolves true when confirmed. Esc and Cancel resolve false; focus returns to the opener.
  function confirmDialog(title, text, confirmLabel) {
    const dialog = document.getElementById("confirm-dialog");
    const opener = document.activeElement;
    document.getElementById("confirm-title").textContent = title;
    document.getElementById("confirm-text").textContent = text;
    document.getElementById("confirm-ok").textContent = confirmLabel || "Confirm";
    dialog.returnValue = "cancel";
    return new Promise((resolve) => {
      dialog.addEventListener("close", () => {
        resolve(dialog.returnValue === "confirm");
        if (opener && typeof opener.focus === "function" && document.contains(opener)) opener.focus();
      }, { once: true });
      dialog.showModal();
      document.getElementById("confirm-cancel").focus();
    });
  }

  // -- delivery log tab

  const WINDOWS = [
    ["1h", "Last hour", HOUR_MS],
    ["24h", "Last 24 hours", DAY_MS],
    ["7d", "Last 7 days", 7 * DAY_MS],
    ["30d", "Last 30 days", 30 * DAY_MS],
    ["all", "Any time", 0],
  ];

  function renderDeliveries(body, detail, seq) {
    const statusSel = h("select", { name: "status", "data-testid": "filter-status" },
      h("option", { value: "failed" }, "Failed"),
      h("option", { value: "paused" }, "Paused"),
    );
    const windowSel = h("select", { name: "window", "data-testid": "filter-window" }, WINDOWS.map(([v, label]) => h("option", { value: v, selected: v === "7d" }, label)));
    const list = h("ul", { class: "delivery-list", "data-testid": "delivery-list", "aria-label": "Deliveries, newest first" });
    const status = h("div", { class: "list-status", "aria-live": "polite" });
    const moreWrap = h("div", { class: "more-wrap" });
    const filters = h("form", { class: "filters", "aria-label": "Filter deliveries" },
      field("filter-status", "Status", statusSel),
      field("filter-window", "Time window", windowSel),
    );
    filters.addEventListener("submit", (ev) => ev.preventDefault());
    body.append(
      section("Delivery log", "delivery-log",
        h("p", { class: "muted" }, "Deliveries that failed for good, or are paused while the endpoint is disabled; newest first. Open one to see each attempt."),
        filters,
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
      const since = span && span[2] ? utcIso(new Date(Date.now() - span[2])) : undefined;
      filter = { live: true, status: statusSel.value, since };
      loadDeliveryPage(detail, filter, list, status, moreWrap, null, seq);
    };
    statusSel.addEventListener("change", load);
    windowSel.addEventListener("change", load);
    load();
  }

  async function loadDeliveryPage(detail, filter, list, status, moreWrap, cursor, seq) {
    let page;
    try {
      page = await api("GET", `/v1/endpoints/${enc(detail.id)}/deliveries${query({ status: filter.status, since: filter.since, order: "desc", limit: PAGE_SIZE, cursor })}`);
    } catch (e) {
      if (!e.expired && current(seq) && filter.live) replaceContent(status, errorBox(e.message, "deliveries-error"));
      return;
    }
    if (!current(seq) || !filter.live) return;
    clear(status);
    const items = Array.isArray(page.items) ? page.items : [];
    if (!cursor && !items.length) status.append(h("p", { class: "empty", "data-testid": "deliveries-empty" }, `No ${filter.status} deliveries in this window.`));
    for (const d of items) list.append(deliveryRow(d));
    list.setAttribute("data-loaded", "true");
    clear(moreWrap);
    if (page.next) {
      const more = button("More", { class: "btn btn-secondary", "data-testid": "deliveries-more" }, () => {
        more.remove();
        loadDeliveryPage(detail, filter, list, status, moreWrap, page.next, seq);
      });
      moreWrap.append(more);
    }
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
    const rowResult = h("span", { class: "row-result", "aria-live": "polite" });
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
    // A paused delivery waits for its endpoint to be re-enabled: retrying it by hand is refused (409), so no button.
    const retry = d.status === "paused" ? null : mutating(button("Retry", { class: "btn btn-small btn-primary", "data-testid": "retry-delivery" }, async () => {
      busy(retry, true, "Retrying…");
      clear(rowResult);
      try {
        const r = await api("POST", `/v1/events/${enc(d.event_id)}/deliveries/${enc(d.id)}/retry`);
        replaceContent(statusSlot, deliveryStatusBadge(r.status || "pending"));
        rowResult.append(h("span", { class: "ok-text", "data-testid": "retry-queued" }, "Retry queued"));
        retry.remove();
      } catch (e) {
        busy(retry, false);
        if (!e.expired) rowResult.append(h("span", { class: "error-text", role: "alert", "data-testid": "retry-error" }, e.message));
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
      h("thead", {}, h("tr", {}, ["#", "Time", "Status", "Duration", "Trigger", "Error", "Response"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, attempts.map((a) =>
        h("tr", { "data-testid": "attempt-row" },
          h("td", { "data-label": "#" }, String(a.number ?? "")),
          h("td", { "data-label": "Time" }, timeEl(a.at)),
          h("td", { "data-label": "Status", "data-testid": "attempt-status" }, a.status_code === null || a.status_code === undefined ? "—" : String(a.status_code)),
          h("td", { "data-label": "Duration" }, millis(a.duration_ms)),
          h("td", { "data-label": "Trigger" }, a.trigger || "scheduled"),
          h("td", { "data-label": "Error" }, a.error || a.reason || "—"),
          h("td", { "data-label": "Response" }, a.response_body ? h("pre", { class: "excerpt", "data-testid": "attempt-response" }, String(a.response_body)) : "—"),
        ),
      )),
    );
    return [head, h("div", { class: "table-scroll" }, table)];
  }

  // -- failures and replay tab

  function renderFailures(body, detail, seq) {
    const sentence = h("p", { class: "sentence", "data-testid": "failure-sentence", "aria-live": "polite" }, "Loading the last 7 days…");
    const total = h("p", { class: "muted", "data-testid": "failure-total" });
    const chartWrap = h("div", { class: "chart-wrap", "data-testid": "chart-wrap" });
    const windowsList = h("ul", { class: "windows", "data-testid": "failure-windows", "aria-label": "Failure windows" });
    const from = h("input", { type: "datetime-local", step: "3600", name: "since" });
    const to = h("input", { type: "datetime-local", step: "3600", name: "until" });
    const replayResult = h("div", { class: "result", "data-testid": "replay-result", "aria-live": "polite" });
    const replay = mutating(h("button", { type: "submit", class: "btn btn-primary", id: "replay-window", "data-testid": "replay-button" }, "Replay this window"));
    const form = h("form", { class: "window-form", "aria-label": "Selected window", novalidate: true },
      h("div", { class: "window-inputs" },
        field("replay-from", "From", from),
        field("replay-to", "To", to),
      ),
      replay ? h("div", { class: "actions" }, replay) : null,
    );
    body.append(
      section("Failures and replay", "failures",
        sentence,
        total,
        chartWrap,
        h("h3", {}, "Failure windows"),
        windowsList,
        h("h3", {}, "Selected window"),
        h("p", { class: "muted" }, state.readOnly ? "Pick a window to count its failures." : "Pick a window on the chart (shift-click extends it) or type it, then replay its failed deliveries in one click. They are sent again at the endpoint's rate limit."),
        form,
        replayResult,
      ),
    );

    const now = new Date();
    const until = new Date(startOfHour(now).getTime() + HOUR_MS);
    const since = new Date(until.getTime() - CHART_HOURS * HOUR_MS);
    const hours = [];
    for (let i = 0; i < CHART_HOURS; i++) hours.push({ start: new Date(since.getTime() + i * HOUR_MS), failed: 0, succeeded: 0 });
    const view = { hours, selection: null, bars: [] };

    const select = (startIdx, endIdx) => {
      const a = Math.max(0, Math.min(startIdx, endIdx));
      const b = Math.min(CHART_HOURS - 1, Math.max(startIdx, endIdx));
      view.selection = [a, b];
      from.value = toLocalInput(hours[a].start);
      to.value = toLocalInput(new Date(hours[b].start.getTime() + HOUR_MS));
      describeSelection();
    };

    const selectedRange = () => {
      const s = fromLocalInput(from.value);
      const u = fromLocalInput(to.value);
      if (!s || !u || s >= u) return null;
      return [s, u];
    };

    const describeSelection = () => {
      const range = selectedRange();
      for (const [i, bar] of view.bars.entries()) {
        const h0 = hours[i].start;
        const inRange = range && h0 >= startOfHour(range[0]) && h0 < range[1];
        bar.classList.toggle("selected", Boolean(inRange));
      }
      if (!range) {
        sentence.textContent = "Pick a window: its start must come before its end.";
        if (replay) replay.disabled = true;
        return;
      }
      let n = 0;
      for (const hr of hours) if (hr.start >= startOfHour(range[0]) && hr.start < range[1]) n += hr.failed;
      sentence.textContent = n
        ? `${plural(n, "delivery", "deliveries")} failed ${windowPhrase(range[0], range[1])}.`
        : `No deliveries failed ${windowPhrase(range[0], range[1])}.`;
      sentence.dataset.count = String(n);
      if (replay) {
        replay.disabled = false;
        replay.textContent = n ? `Replay ${plural(n, "failed delivery", "failed deliveries")}` : "Replay this window";
      }
    };
    from.addEventListener("change", describeSelection);
    to.addEventListener("change", describeSelection);
    from.addEventListener("input", describeSelection);
    to.addEventListener("input", describeSelection);

    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      if (!replay) return;
      const range = selectedRange();
      if (!range) return;
      clear(replayResult);
      busy(replay, true, "Starting replay…");
      try {
        const started = await api("POST", `/v1/endpoints/${enc(detail.id)}/replay`, { since: utcIso(range[0]), until: utcIso(range[1]), status: "failed" });
        busy(replay, false);
        trackReplay(started.id, replayResult, seq);
      } catch (e) {
        busy(replay, false);
        if (!e.expired) replayResult.append(errorBox(e.message, "replay-error"));
      }
    });

    // The endpoint's failed deliveries by the hour they were created in: what a replay of that window restarts.
    api("GET", `/v1/endpoints/${enc(detail.id)}/failures${query({ since: utcIso(since), until: utcIso(until) })}`).then(
      (failures) => {
        if (!current(seq)) return;
        const byHour = new Map(hours.map((hr, i) => [hr.start.getTime(), i]));
        for (const point of Array.isArray(failures.hours) ? failures.hours : []) {
          const i = byHour.get(startOfHour(new Date(point.hour)).getTime());
          if (i === undefined) continue;
          hours[i].failed += point.count || 0;
        }
        const sum = hours.reduce((acc, hr) => acc + hr.failed, 0);
        const more = failures.truncated ? " (the newest ones; older hours show at least their count)" : "";
        total.textContent = sum
          ? `${plural(sum, "delivery", "deliveries")} of the last 7 days ${sum === 1 ? "is" : "are"} failed and can be replayed${more}.`
          : "No delivery of the last 7 days is failed.";
        replaceContent(chartWrap, failureChart(hours, view, select));
        const runs = failureRuns(hours);
        clear(windowsList);
        if (!runs.length) windowsList.append(h("li", { class: "muted" }, "No failures to replay."));
        for (const run of [...runs].sort((x, y) => y.start - x.start).slice(0, 8)) {
          const label = `${plural(run.failed, "failure", "failures")} ${windowPhrase(hours[run.start].start, new Date(hours[run.end].start.getTime() + HOUR_MS))}`;
          windowsList.append(h("li", {}, button(label, { class: "btn btn-link", "data-testid": "failure-window" }, () => {
            select(run.start, run.end);
            from.focus();
          })));
        }
        if (runs.length) {
          const worst = runs.reduce((best, r) => (r.failed > best.failed ? r : best));
          select(worst.start, worst.end);
        } else {
          select(CHART_HOURS - 1, CHART_HOURS - 1);
          sentence.textContent = "No deliveries failed in the last 7 days.";
        }
      },
      (e) => {
        if (!e.expired && current(seq)) replaceContent(sentence, errorBox(e.message, "chart-error"));
      },
    );
  }

  // Contiguous runs of hours with failures: the windows a customer would replay.
  function failureRuns(hours) {
    const runs = [];
    let run = null;
    hours.forEach((hr, i) => {
      if (hr.failed > 0) {
        if (run) {
          run.end = i;
          run.failed += hr.failed;
        } else {
          run = { start: i, end: i, failed: hr.failed };
          runs.push(run);
        }
      } else {
        run = null;
      }
    });
    return runs;
  }

  function failureChart(hours, view, select) {
    const W = 840;
    const H = 200;
    const padL = 36;
    const padB = 28;
    const padT = 10;
    const plotW = W - padL - 8;
    const plotH = H - padB - padT;
    const max = Math.max(1, ...hours.map((hr) => hr.failed));
    const step = plotW / hours.length;
    const barW = Math.max(1, step - 1);
    const total = hours.reduce((a, hr) => a + hr.failed, 0);
    const chart = svg("svg", {
      viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "data-testid": "failure-chart",
      "aria-label": `Deliveries that failed for good, per hour over the last 7 days: ${total} in all, at most ${max === 1 && total === 0 ? 0 : max} in one hour.`,
    });
    chart.append(svg("title", {}, "Failed deliveries per hour, last 7 days"));
    // gridlines and y labels: 0, half, max
    for (const frac of [0, 0.5, 1]) {
      const y = padT + plotH - frac * plotH;
      chart.append(svg("line", { x1: padL, x2: W - 8, y1: y, y2: y, class: "grid" }));
      chart.append(svg("text", { x: padL - 6, y: y + 4, class: "axis", "text-anchor": "end" }, String(Math.round(frac * max))));
    }
    // day boundaries in the browser's zone
    hours.forEach((hr, i) => {
      if (hr.start.getHours() === 0) {
        const x = padL + i * step;
        chart.append(svg("line", { x1: x, x2: x, y1: padT, y2: padT + plotH, class: "day-line" }));
        chart.append(svg("text", { x: x + 3, y: H - 8, class: "axis" }, fmtWeekday.format(hr.start)));
      }
    });
    let anchor = null;
    view.bars = hours.map((hr, i) => {
      const height = hr.failed ? Math.max(2, (hr.failed / max) * plotH) : 0;
      const x = padL + i * step;
      const g = svg("g", { class: "bar-group" });
      // A full-height hit area makes empty hours selectable too.
      g.append(svg("rect", { x, y: padT, width: step, height: plotH, class: "hit" }));
      const bar = svg("rect", {
        x: x + 0.5, y: padT + plotH - height, width: barW, height,
        class: hr.failed ? "bar" : "bar empty",
        "data-testid": "chart-bar", "data-hour": utcIso(hr.start), "data-count": hr.failed,
      });
      g.append(bar);
      g.append(svg("title", {}, `${hr.failed} failed · ${fmtDateTime.format(hr.start)} (${utcIso(hr.start)} UTC)`));
      g.addEventListener("click", (ev) => {
        if (ev.shiftKey && anchor !== null) select(anchor, i);
        else {
          anchor = i;
          select(i, i);
        }
      });
      chart.append(g);
      return g;
    });
    return chart;
  }

  function trackReplay(id, box, seq) {
    const stat = (label, testid) => h("div", { class: "metric" }, h("dt", {}, label), h("dd", { "data-testid": testid }, "0"));
    const status = h("span", { class: "badge badge-neutral", "data-testid": "replay-status" }, "running");
    const bar = h("progress", { max: "1", value: "0", "aria-label": "Replay progress" });
    const panel = h("div", { class: "replay-progress", "data-testid": "replay-progress", "data-replay-id": id },
      h("p", { class: "strong" }, "Replay ", status),
      bar,
      h("dl", { class: "metrics compact" },
        stat("Matched", "replay-matched"),
        stat("Queued", "replay-queued"),
        stat("Delivered", "replay-delivered"),
        stat("Failed", "replay-failed"),
      ),
      h("p", { class: "muted", "data-testid": "replay-note" }, "Replayed deliveries go out at the endpoint's rate limit."),
    );
    replaceContent(box, panel);
    let polls = 0;
    const poll = async () => {
      polls += 1;
      let r;
      try {
        r = await api("GET", `/v1/replays/${enc(id)}`);
      } catch (e) {
        if (!e.expired && current(seq)) replaceContent(panel.querySelector("[data-testid=replay-note]"), errorBox(e.message, "replay-poll-error"));
        if (!e.expired && current(seq) && polls < REPLAY_POLL_LIMIT) later(poll, REPLAY_POLL_MS * 2);
        return;
      }
      if (!current(seq)) return;
      for (const k of ["matched", "queued", "delivered", "failed"]) panel.querySelector(`[data-testid=replay-${k}]`).textContent = String(r[k] ?? 0);
      const done = (r.delivered || 0) + (r.failed || 0);
      bar.setAttribute("max", String(Math.max(1, r.matched || 0)));
      bar.setAttribute("value", String(done));
      status.textContent = r.status;
      status.className = `badge ${r.status === "completed" ? (r.failed ? "badge-warn" : "badge-ok") : "badge-neutral"}`;
      if (r.status === "completed") {
        panel.setAttribute("data-complete", "true");
        panel.querySelector("[data-testid=replay-note]").textContent = r.matched
          ? `Done: ${plural(r.delivered || 0, "delivery", "deliveries")} succeeded${r.failed ? `, ${r.failed} failed again` : ""}.`
          : "Done: no failed delivery matched this window.";
        return;
      }
      if (polls < REPLAY_POLL_LIMIT) later(poll, REPLAY_POLL_MS);
      else panel.querySelector("[data-testid=replay-note]").textContent = "Still running; reload the page later to see how it ended.";
    };
    poll();
  }

  // ---------------------------------------------------------------- create endpoint

  function renderCreate(root) {
    const limits = ceiling();
    const url = h("input", { type: "url", name: "url", required: true, autocomplete: "off", spellcheck: "false", placeholder: "https://example.com/webhooks" });
    const description = h("input", { type: "text", name: "description", maxlength: "500" });
    const picker = eventTypePicker("new", []);
    const rate = h("input", { type: "number", name: "rate_limit_per_second", min: "0.1", step: "any", inputmode: "decimal", placeholder: "10" });
    const concurrency = h("input", { type: "number", name: "max_concurrency", min: "1", step: "1", inputmode: "numeric", placeholder: "5" });
    const result = h("div", { class: "result", "data-testid": "create-result", "aria-live": "polite" });
    const submit = h("button", { type: "submit", class: "btn btn-primary", id: "create-submit", "data-testid": "create-submit", "data-mutating": "" }, "Create endpoint");
    const form = h("form", { class: "form panel", id: "create-form", novalidate: true, "data-testid": "create-form", "data-mutating": "" },
      field("new-url", "URL", url, "Where webhooks are sent. Use HTTPS."),
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
        result.append(errorBox("Rate limit and max concurrency must be numbers.", "create-error"));
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
        if (!e.expired) result.append(errorBox(e.message, "create-error"));
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
        h("p", {}, "Webhooks for ", h("span", { class: "mono", "data-testid": "created-url" }, created.url), " are signed with this secret. Copy it now; you can reveal it again from the endpoint's settings."),
        h("code", { class: "secret", "data-testid": "created-secret" }, created.secret || ""),
        h("div", { class: "actions" }, go),
      ),
    );
    root.querySelector(".view-title").focus();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
