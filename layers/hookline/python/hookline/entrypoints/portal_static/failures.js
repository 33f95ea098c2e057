// The endpoint's failures and replay tab: failed deliveries per hour over 7 days as an SVG chart, the failure windows,
// the selected window as a sentence, and a replay of it followed until it completes.

import { api, enc, query } from "./api.js";
import { busy, button, clear, errorBox, field, h, mutating, replaceContent, section, svg } from "./dom.js";
import { fmtDateTime, fmtWeekday, fromLocalInput, HOUR_MS, plural, startOfHour, toLocalInput, utcIso, windowPhrase } from "./format.js";
import { current, later, state } from "./session.js";

const CHART_HOURS = 7 * 24;
const REPLAY_POLL_MS = 1000;
const REPLAY_POLL_LIMIT = 600; // ten minutes of polling, then the page stops asking and says so

export function renderFailures(body, detail, seq) {
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
