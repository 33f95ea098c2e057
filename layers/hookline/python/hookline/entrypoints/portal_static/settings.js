// The endpoint's settings tab: re-enable (following the re-queue job), an AWS destination and its role (destination.js),
// how hookline authenticates to the receiver (auth.js),
// payload version (versions.js), configuration with the measured pace, content filter (filter.js), health, signing
// secret, test event and delete.

import { api, enc } from "./api.js";
import { authSection } from "./auth.js";
import { destinationSection } from "./destination.js";
import { append, busy, button, clear, confirmDialog, errorBox, field, h, metric, mutating, notice, okBox, replaceContent, report, section } from "./dom.js";
import { filterSection } from "./filter.js";
import { acceptedPhrase, attemptSummary, awsDestination, circuitBadge, count, describeError, disabledReason, millis, percent, plural, timeEl, URL_HINT, where } from "./format.js";
import { eventTypePicker, numberValue } from "./forms.js";
import { navigate } from "./nav.js";
import { ceiling, current, later, state } from "./session.js";
import { versionSection } from "./versions.js";

const JOB_POLL_MS = 2000;
const JOB_POLL_LIMIT = 15; // thirty seconds of following a re-enable's re-queue; the job goes on without the page
const ACTIVE_AGAIN = "The endpoint is active again";

export function renderSettings(body, detail, seq) {
  const measured = h("div", { class: "measured", "data-testid": "measured", "aria-live": "polite" }, h("span", { class: "muted" }, "Measuring…"));
  append(body, [
    statusSection(detail),
    destinationSection(detail),
    authSection(detail),
    versionSection(detail, seq),
    configSection(detail, measured),
    filterSection(detail),
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

function statusSection(detail) {
  if (detail.status === "active") return null;
  const result = h("div", { class: "result", "data-testid": "enable-result" });
  const enableBtn = mutating(button("Re-enable endpoint", { class: "btn btn-primary", id: "enable-endpoint", "data-testid": "enable-endpoint" }, async () => {
    busy(enableBtn, true, "Sending a test event…");
    clear(result);
    try {
      const answer = await api("POST", `/v1/endpoints/${enc(detail.id)}/enable`);
      const job = answer && answer.requeue && typeof answer.requeue.id === "string" ? answer.requeue : null;
      const message = job ? `${ACTIVE_AGAIN}; its paused deliveries are being re-queued.` : `${ACTIVE_AGAIN}.`;
      navigate({ view: "endpoint", id: detail.id, tab: "settings" }, { replace: true, notice: message });
      if (job) trackRequeue(job.id, state.renderSeq);
    } catch (e) {
      if (e.expired) return;
      busy(enableBtn, false);
      const attempt = (e.body && e.body.error && e.body.error.attempt) || null;
      report(result, errorBox(e.message, "enable-error"), attempt ? attemptSummary(attempt) : null);
    }
  }));
  return h("section", { class: "panel panel-alert", "data-testid": "disabled-panel", "aria-labelledby": "disabled-title" },
    h("h2", { id: "disabled-title" }, "This endpoint is disabled"),
    h("p", { "data-testid": "disabled-reason" }, `It was disabled because ${disabledReason(detail)}. Events for it are kept as paused deliveries.`),
    state.readOnly ? null : h("p", { class: "muted" }, `${awsDestination(detail) ? "Fix its access first (see Destination below). " : ""}Re-enabling sends a test event first. If ${acceptedPhrase(detail)}, it becomes active again and its paused deliveries are sent at its rate limit.`),
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

function configSection(detail, measured) {
  const types = detail.event_types && detail.event_types.length ? detail.event_types.join(", ") : "every event type";
  const limits = ceiling();
  if (state.readOnly) {
    return section("Configuration", "config",
      h("dl", { class: "kv" },
        h("dt", {}, awsDestination(detail) ? "Destination" : "URL"), h("dd", { class: "mono", "data-testid": "config-where" }, where(detail)),
        h("dt", {}, "Description"), h("dd", {}, detail.description || "—"),
        h("dt", {}, "Event types"), h("dd", { class: "mono" }, types),
        h("dt", {}, "Rate limit"), h("dd", { "data-testid": "rate-limit-value" }, `${detail.rate_limit_per_second} per second`),
        h("dt", {}, "Max concurrency"), h("dd", {}, `${detail.max_concurrency} at a time`),
      ),
      measured,
    );
  }
  // An AWS destination is shown (and changed) as a whole in its own panel: the form edits only an HTTP endpoint's URL.
  const url = awsDestination(detail) ? null : h("input", { type: "url", name: "url", value: detail.url || "", required: true, autocomplete: "off", spellcheck: "false" });
  const description = h("input", { type: "text", name: "description", value: detail.description || "", maxlength: "500" });
  const picker = eventTypePicker("edit", detail.event_types);
  const rate = h("input", { type: "number", name: "rate_limit_per_second", value: detail.rate_limit_per_second, min: "0.1", step: "any", inputmode: "decimal" });
  const concurrency = h("input", { type: "number", name: "max_concurrency", value: detail.max_concurrency, min: "1", step: "1", inputmode: "numeric" });
  const result = h("div", { class: "result", "data-testid": "settings-result" });
  const save = h("button", { type: "submit", class: "btn btn-primary", id: "save-settings", "data-testid": "save-settings" }, "Save changes");
  mutating(save);
  const form = h("form", { class: "form", id: "settings-form", novalidate: true, "data-mutating": "" },
    url ? field("edit-url", "URL", url, URL_HINT) : h("p", { class: "hint", "data-testid": "config-where" }, `Webhooks go to the ${where(detail)} shown under Destination.`),
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
    if (url && url.value.trim() !== detail.url) changes.url = url.value.trim();
    if (description.value !== (detail.description || "")) changes.description = description.value;
    const newTypes = picker.value();
    const oldTypes = detail.event_types || [];
    if (newTypes.length !== oldTypes.length || newTypes.some((t) => !oldTypes.includes(t))) changes.event_types = newTypes;
    const r = numberValue(rate);
    const c = numberValue(concurrency);
    if (Number.isNaN(r) || Number.isNaN(c)) {
      report(result, errorBox("Rate limit and max concurrency must be numbers.", "settings-error"));
      return;
    }
    if (r !== undefined && r !== detail.rate_limit_per_second) changes.rate_limit_per_second = r;
    if (c !== undefined && c !== detail.max_concurrency) changes.max_concurrency = c;
    if (!Object.keys(changes).length) {
      report(result, okBox("Nothing to save: no field changed.", "settings-saved"));
      return;
    }
    busy(save, true, "Saving…");
    try {
      const updated = await api("PATCH", `/v1/endpoints/${enc(detail.id)}`, changes);
      Object.assign(detail, updated);
      busy(save, false);
      report(result, okBox("Saved.", "settings-saved"));
    } catch (e) {
      busy(save, false);
      if (!e.expired) report(result, errorBox(e.message, "settings-error"));
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
    ["Success rate, last 24 hours", h("span", { "data-testid": "health-success-rate" }, health.attempts ? `${percent(health.success_rate)} of ${plural(health.attempts, "attempt", "attempts")}` : "no attempts")],
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
        ...(s.previous_secrets || []).map((p) => h("p", { class: "muted" }, "The previous secret ", h("code", { class: "secret small", "data-testid": "previous-secret" }, p.secret), " also signs until ", timeEl(p.valid_until), ".")),
      );
      reveal.textContent = "Hide secret";
      reveal.setAttribute("aria-expanded", "true");
    } catch (e) {
      busy(reveal, false);
      if (!e.expired) replaceContent(shown, errorBox(e.message, "secret-error"));
    }
  });
  const rotated = h("div", { class: "result", "data-testid": "rotate-result" });
  const rotate = mutating(button("Rotate secret", { class: "btn btn-secondary", id: "rotate-secret", "data-testid": "rotate-secret" }, async () => {
    const ok = await confirmDialog("Rotate the signing secret?", "A new secret signs every webhook from now on. The current one keeps signing too for a while, so you can update your receiver without dropping anything.", "Rotate secret");
    if (!ok) return;
    busy(rotate, true, "Rotating…");
    clear(rotated);
    try {
      const r = await api("POST", `/v1/endpoints/${enc(detail.id)}/secret/rotate`);
      busy(rotate, false);
      clear(shown);
      reveal.textContent = "Reveal secret";
      reveal.setAttribute("aria-expanded", "false");
      report(rotated,
        h("div", { class: "alert alert-ok", role: "status", "data-testid": "rotate-message" },
          h("p", { class: "strong" }, "New secret (shown once — copy it now):"),
          h("code", { class: "secret", "data-testid": "rotated-secret" }, r.secret),
          oneSignature(detail.signing)
            ? h("p", { "data-testid": "rotate-explanation" },
              "This endpoint's format carries one signature, so every webhook is signed with the new secret alone from now on: switch your receiver to it now.")
            : h("p", { "data-testid": "rotate-explanation" },
              "Until ", timeEl(r.previous_secret_valid_until), " every webhook carries a signature with the old secret too, beside the new one (and one with each earlier secret until its own end). ",
              "Switch your receiver to the new secret before then; after that the old one no longer signs."),
        ),
      );
    } catch (e) {
      busy(rotate, false);
      if (!e.expired) report(rotated, errorBox(e.message, "rotate-error"));
    }
  }));
  return section("Signing secret", "secret",
    h("p", { class: "muted" }, awsDestination(detail)
      ? "Verify each delivery's signature (a message attribute, or in its metadata, beside the body) as below."
      : "Verify each webhook's signature header as below."),
    signingList(detail.signing),
    h("div", { class: "actions" }, reveal, rotate),
    shown,
    rotated,
  );
}

// What an endpoint's signing sends (hookline.core.schemes): the main format, each `also` format until its date (only
// while that is ahead), and the Ed25519 public key to verify v1a signatures with. Never a secret.
const PRESETS = { github: "GitHub (X-Hub-Signature-256)", stripe: "Stripe (Stripe-Signature)", shopify: "Shopify (X-Shopify-Hmac-Sha256)" };

function formatName(scheme) {
  if (scheme.scheme === "standard-webhooks") {
    return scheme.algorithm === "ed25519" ? "Standard Webhooks v1a (Ed25519), in webhook-signature" : "Standard Webhooks v1 (HMAC-SHA256 with the secret), in webhook-signature";
  }
  if (scheme.preset) return `${PRESETS[scheme.preset] || scheme.preset}, HMAC-SHA256 with the secret`;
  return `${scheme.header}: ${scheme.prefix || ""}${scheme.encoding} HMAC-${String(scheme.algorithm).toUpperCase()} of ${scheme.signed === "{body}" ? "the body" : scheme.signed}, with the secret`;
}

// GitHub's, Shopify's and a custom HMAC header carry one signature, the current secret's: a rotation has no overlap
// when every format sent now is one of those.
function oneSignature(signing) {
  return !!signing && sentNow(signing).every((s) => s.scheme === "hmac" && s.preset !== "stripe");
}

function sentNow(signing) {
  const also = signing.also && signing.also.length && new Date(signing.also_until) > new Date() ? signing.also : [];
  return [signing, ...also];
}

function signingList(signing) {
  const given = signing || { scheme: "standard-webhooks", algorithm: "hmac-sha256" };
  const migrating = sentNow(given).slice(1);
  return h("div", { class: "signing", "data-testid": "signing" },
    h("p", { class: "secret-label" }, "Each webhook is signed with"),
    h("ul", { class: "signing-formats" },
      h("li", { "data-testid": "signing-format" }, formatName(given)),
      migrating.map((s) => h("li", { "data-testid": "signing-format" }, formatName(s), " — until ", timeEl(given.also_until), ", while receivers move over")),
    ),
    given.public_key
      ? h("p", {}, "Ed25519 public key (verifies v1a; also at GET /v1/jwks): ", h("code", { class: "secret small", "data-testid": "signing-public-key" }, given.public_key))
      : null,
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
  const result = h("div", { class: "result", "data-testid": "delete-result" });
  const del = mutating(button("Delete endpoint", { class: "btn btn-danger", id: "delete-endpoint", "data-testid": "delete-endpoint" }, async () => {
    const ok = await confirmDialog("Delete this endpoint?", `${where(detail)} stops receiving webhooks at once. This cannot be undone.`, "Delete endpoint");
    if (!ok) return;
    busy(del, true, "Deleting…");
    try {
      await api("DELETE", `/v1/endpoints/${enc(detail.id)}`);
      navigate({}, { replace: true, notice: `Deleted ${where(detail)}.` });
    } catch (e) {
      busy(del, false);
      if (!e.expired) report(result, errorBox(e.message, "delete-error"));
    }
  }));
  return h("section", { class: "panel panel-danger", "data-testid": "danger", "aria-labelledby": "danger-title" },
    h("h2", { id: "danger-title" }, "Delete"),
    h("p", { class: "muted" }, "Deleting an endpoint stops its webhooks at once; deliveries not yet made are dropped."),
    del,
    result,
  );
}
