// How the API's values read on the page: times in the browser's zone (the UTC time on hover), rates, durations,
// counts and time windows, and the small elements several views show (status and circuit badges, an attempt).

import { DESTINATION_KINDS } from "./destination_kinds.js";
import { h } from "./dom.js";

export const HOUR_MS = 3600 * 1000;
export const DAY_MS = 24 * HOUR_MS;

export const fmtDateTime = new Intl.DateTimeFormat(undefined, {
  year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23",
});
const fmtClock = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
const fmtDay = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric" });
const fmtDate = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "numeric" });
export const fmtWeekday = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric" });
export const fmtDayOfMonth = new Intl.DateTimeFormat(undefined, { day: "numeric" }); // a day label where the weekday does not fit

export function utcIso(date) {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

// A time in the browser's zone, the UTC ISO time on hover.
export function timeEl(iso, attrs) {
  if (!iso) return h("span", { class: "muted" }, "—");
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return h("span", {}, String(iso));
  return h("time", { datetime: utcIso(date), title: `${utcIso(date)} (UTC)`, ...attrs }, fmtDateTime.format(date));
}

// A day in the browser's zone, the UTC ISO time on hover.
export function dateEl(iso, attrs) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return h("span", {}, String(iso));
  return h("time", { datetime: utcIso(date), title: `${utcIso(date)} (UTC)`, ...attrs }, fmtDate.format(date));
}

// What an endpoint's URL field takes: the API refuses plain http unless the deployment allows it (HOOKLINE_ALLOW_HTTP).
// What the API accepts as an endpoint's URL (validate_url and the deployment's URL policy), in the customer's words.
export const URL_HINT = "Where webhooks are sent: an https:// URL of a public host, such as https://example.com/webhooks, with no user name or password in it. Plain http://, a port other than 443 or 80, and private or internal addresses are refused unless this service allows them (local mode does).";

export function percent(rate) {
  if (rate === null || rate === undefined || Number.isNaN(rate)) return "—";
  const p = rate * 100;
  return `${p >= 99.95 || p === 0 ? p.toFixed(0) : p.toFixed(1)}%`;
}

export function millis(ms) {
  if (ms === null || ms === undefined) return "—";
  return ms >= 1000 ? `${(ms / 1000).toFixed(ms >= 10000 ? 0 : 1)} s` : `${Math.round(ms)} ms`;
}

export function plural(n, one, many) {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}

export function count(n, more) {
  return more ? `${n.toLocaleString()}+` : n.toLocaleString();
}

// "between 14:00 and 16:00 on Aug 4", or "between 22:00 on Aug 4 and 02:00 on Aug 5".
export function windowPhrase(since, until) {
  const sameDay = fmtDay.format(since) === fmtDay.format(new Date(until.getTime() - 1));
  if (sameDay) return `between ${fmtClock.format(since)} and ${fmtClock.format(until)} on ${fmtDay.format(since)}`;
  return `between ${fmtClock.format(since)} on ${fmtDay.format(since)} and ${fmtClock.format(until)} on ${fmtDay.format(until)}`;
}

// <input type="datetime-local"> speaks the browser's zone as "YYYY-MM-DDTHH:MM".
export function toLocalInput(date) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export function fromLocalInput(value) {
  if (!value) return null;
  const date = new Date(value); // a date-time without an offset is local time
  return Number.isNaN(date.getTime()) ? null : date;
}

export function startOfHour(date) {
  const d = new Date(date.getTime());
  d.setUTCMinutes(0, 0, 0);
  return d;
}

const DISABLED_REASONS = {
  gone: "the endpoint answered 410 Gone",
  failing: "it kept failing for too long",
  manual: "it was disabled by request",
  access_denied: "its AWS destination (or the role assumed for it) refused access",
  destination_missing: "its AWS destination (or the role assumed for it) does not exist",
  kms_refused: "the KMS key that encrypts its AWS destination refused to be used",
};

// ---------------------------------------------------------------- where an endpoint delivers

const NOT_ADDRESSES = new Set(["type", "role_arn", "external_id", "source", "prefix"]);

function text(value) {
  return typeof value === "string" && value ? value : "";
}

// An endpoint's non-HTTP destination, or null when it delivers to a URL (its `destination` is {type: "http", url}, or
// absent in an answer from before destinations).
export function awsDestination(endpoint) {
  const d = endpoint && endpoint.destination;
  // A polling endpoint's destination is hookline's own mailbox: no role, nothing in the customer's account.
  return d && typeof d === "object" && text(d.type) && d.type !== "http" && d.type !== "poll" ? d : null;
}

// A destination's address as people read it: the URL, ARN or bucket (an S3 bucket with its key prefix).
export function destinationAddress(d) {
  const kind = DESTINATION_KINDS[d.type];
  if (kind) {
    const address = text(d[kind.field]);
    return d.type === "s3" && text(d.prefix) ? `${address}/${d.prefix}` : address;
  }
  // A type this page does not know yet: the first address-like string it carries.
  const found = Object.entries(d).find(([k, v]) => !NOT_ADDRESSES.has(k) && text(v));
  return found ? found[1] : "";
}

export function destinationLabel(d) {
  return (DESTINATION_KINDS[d.type] && DESTINATION_KINDS[d.type].label) || `${d.type} destination`;
}

// The condition a test event must meet to count as accepted, for a sentence starting "If ".
export function acceptedPhrase(endpoint) {
  return awsDestination(endpoint) ? "the destination accepts it" : "your endpoint answers with a 2xx status";
}

// Where an endpoint delivers, in one line: its URL, or e.g. "SQS queue https://sqs…/orders", "S3 bucket archive/prefix".
// Never "null": an endpoint without an address reads as such.
export function where(endpoint) {
  const d = awsDestination(endpoint);
  if (d) return `${destinationLabel(d)} ${destinationAddress(d) || "(no address)"}`;
  const http = endpoint && endpoint.destination && typeof endpoint.destination === "object" ? text(endpoint.destination.url) : "";
  return http || text(endpoint && endpoint.url) || "(no address)";
}

// The health's last_error is a status code ("503") or an error name ("timeout").
export function describeError(error) {
  const text = String(error);
  return /^\d{3}$/.test(text) ? `HTTP ${text}` : text;
}

export function disabledReason(endpoint) {
  return DISABLED_REASONS[endpoint.disabled_reason] || (endpoint.disabled_reason ? String(endpoint.disabled_reason) : "no reason recorded");
}

// ---------------------------------------------------------------- badges

export function statusBadge(endpoint) {
  const active = endpoint.status === "active";
  return h("span", { class: `badge ${active ? "badge-ok" : "badge-bad"}`, "data-testid": "status-badge" }, active ? "Active" : "Disabled");
}

// An ordered endpoint's badge: its deliveries go one at a time, in the order the events were accepted.
export function orderedBadge(endpoint) {
  if (!endpoint.ordered) return null;
  return h("span", { class: "badge badge-neutral", "data-testid": "ordered-badge", title: "Deliveries go one at a time, in the order the events were accepted: one that fails holds the ones behind it." }, "Ordered");
}

// What holds an ordered endpoint's line, while something does: the delivery every later one waits behind.
export function lineNotice(endpoint) {
  const line = endpoint.ordered && endpoint.line;
  if (!line) return null;
  const last = line.outcome === "deferred" ? `not sent yet: ${line.reason}` : `attempt ${line.attempt - 1} failed (${line.status_code ?? line.error ?? "no response"}): ${line.reason}`;
  return h("p", { class: "alert alert-warn", role: "status", "data-testid": "line-head", "data-event-id": line.event_id, "data-delivery-id": line.delivery_id },
    h("strong", {}, "Holding the line: "),
    `the delivery of event `, h("code", { class: "mono" }, line.event_id), `, ${last}. `,
    "Next try ", timeEl(line.next_at, { "data-testid": "line-next-at" }), "; it has held the line since ", timeEl(line.since), ". ",
    "Later deliveries to this endpoint wait until it succeeds or is given up.",
  );
}

export function circuitBadge(circuit) {
  const s = (circuit && circuit.state) || "closed";
  const cls = { closed: "badge-ok", open: "badge-bad", half_open: "badge-warn" }[s] || "badge-neutral";
  const label = { closed: "Circuit closed", open: "Circuit open", half_open: "Circuit half-open" }[s] || `Circuit ${s}`;
  const title = { closed: "Deliveries flow normally.", open: "Deliveries are paused after repeated failures; they resume after a cool-down.", half_open: "A trial delivery is testing whether the endpoint recovered." }[s];
  return h("span", { class: `badge ${cls}`, "data-testid": "circuit-badge", "data-state": s, title }, label);
}

// The attempt an error answer carries (a test event the endpoint refused): status, duration, error.
export function attemptSummary(attempt) {
  const items = [
    ["Status", attempt.status_code === null || attempt.status_code === undefined ? "no response" : String(attempt.status_code)],
    ["Duration", millis(attempt.duration_ms)],
  ];
  if (attempt.error) items.push(["Error", String(attempt.error)]);
  if (attempt.detail) items.push(["Detail", String(attempt.detail)]);
  return h("dl", { class: "kv", "data-testid": "attempt-summary" }, items.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
}
