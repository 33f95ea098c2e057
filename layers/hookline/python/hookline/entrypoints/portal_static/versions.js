// The settings tab's payload-version panel: the version the endpoint is pinned to, how it stands (deprecated, past
// its sunset, latest) and the upgrade offer, which moves the endpoint only if it accepts a test event.

import { api, enc } from "./api.js";
import { busy, button, clear, confirmDialog, errorBox, h, mutating, replaceContent, report, section } from "./dom.js";
import { acceptedPhrase, attemptSummary, dateEl, where } from "./format.js";
import { navigate } from "./nav.js";
import { current } from "./session.js";

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

export function versionSection(detail, seq) {
  if (typeof detail.version !== "string" || !detail.version) return null;
  const pinned = detail.version;
  const stateSlot = h("span", { "data-testid": "version-state" });
  const offer = h("div", { class: "version-offer", "data-testid": "version-offer", "aria-live": "polite" });
  const result = h("div", { class: "result", "data-testid": "upgrade-result" });
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
      `A signed hookline.test event rendered at version ${target} is sent to ${where(detail)} first. If ${acceptedPhrase(detail)}, it is pinned to ${target} and its webhooks carry that version's payloads from then on; otherwise it stays on ${pinned}.`,
      "Send test and upgrade",
    );
    if (!ok) return;
    busy(upgrade, true, "Sending a test event…");
    clear(result);
    try {
      const updated = await api("PATCH", `/v1/endpoints/${enc(detail.id)}`, { version: target });
      const message = `Your endpoint accepted the test event and is now pinned to version ${(updated && updated.version) || target}.`;
      navigate({ view: "endpoint", id: detail.id, tab: "settings" }, { replace: true, notice: message });
    } catch (e) {
      if (e.expired) return;
      busy(upgrade, false);
      const attempt = (e.body && e.body.error && e.body.error.attempt) || null;
      if (e.status === 424 || e.code === "test_event_failed") {
        report(result,
          errorBox(`Your endpoint did not accept the test event at version ${target}, so it stays pinned to ${pinned}.`, "upgrade-error"),
          attempt ? attemptSummary(attempt) : null,
        );
      } else {
        report(result, errorBox(e.message, "upgrade-error"));
      }
    }
  }));
  if (!upgrade) return h("p", { class: "muted", "data-testid": "upgrade-available" }, "Version ", h("span", { class: "mono" }, target), " is available.");
  return [
    h("p", { class: "hint" }, "Upgrading sends a test event at the new version first; the endpoint moves only if it accepts it."),
    h("div", { class: "actions" }, upgrade),
  ];
}
