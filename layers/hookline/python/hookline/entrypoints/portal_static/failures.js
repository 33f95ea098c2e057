// The endpoint's failures and replay tab: failed deliveries per hour over 7 days as an SVG chart, the failure windows,
// the selected window as a sentence, and a replay of it followed until it completes.
//
// The chart is drawn in CSS pixels at the width it is shown at (and drawn again when that changes), never scaled: its
// labels keep their size and every hour's bar is at least MIN_BAR_PX wide on a phone as on a desktop. Its bars are a
// pointer shortcut; by keyboard a window is picked from the list of failure windows or typed into From and To.

import { api, enc, query } from "./api.js";
import { busy, button, clear, errorBox, field, focusMessage, h, mutating, replaceContent, report, section, svg } from "./dom.js";
import { fmtDateTime, fmtDayOfMonth, fmtWeekday, fromLocalInput, HOUR_MS, plural, startOfHour, toLocalInput, utcIso, windowPhrase } from "./format.js";
import { current, later, state } from "./session.js";

const CHART_HOURS = 7 * 24;
const CHART_HEIGHT = 200; // px
const MIN_BAR_PX = 2; // an hour's bar, however narrow the screen: neighbours may overlap a little, a spike stays visible
const REPLAY_POLL_MS = 1000;
const REPLAY_POLL_LIMIT = 600; // ten minutes of polling, then the page stops asking and says so

export function renderFailures(body, detail, seq) {
  const sentence = h("p", { class: "sentence", "data-testid": "failure-sentence", "aria-live": "polite" }, "Loading the last 7 days…");
  const total = h("p", { class: "muted", "data-testid": "failure-total" });
  const chartWrap = h("div", { class: "chart-wrap", "data-testid": "chart-wrap" });
  const windowsList = h("ul", { class: "windows", "data-testid": "failure-windows", "aria-label": "Failure windows" });
  const from = h("input", { type: "datetime-local", step: "3600", name: "since" });
  const to = h("input", { type: "datetime-local", step: "3600", name: "until" });
  const replayResult = h("div", { class: "result", "data-testid": "replay-result" });
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
      h("p", { class: "muted" }, state.readOnly
        ? "Pick a window on the chart, from the list above, or type it, to count its failures."
        : "Pick a window on the chart (shift-click extends it), from the list above, or type it, then replay its failed deliveries in one click. They are sent again at the endpoint's rate limit."),
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

  // The bars of the selected window, marked (again after the chart is drawn anew at another width).
  const markSelection = () => {
    const range = selectedRange();
    for (const [i, bar] of view.bars.entries()) {
      const h0 = hours[i].start;
      const inRange = range && h0 >= startOfHour(range[0]) && h0 < range[1];
      bar.classList.toggle("selected", Boolean(inRange));
    }
  };

  const describeSelection = () => {
    const range = selectedRange();
    markSelection();
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
      if (!e.expired) report(replayResult, errorBox(e.message, "replay-error"));
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
      followWidth(chartWrap, seq, () => {
        drawChart(chartWrap, hours, view, select);
        markSelection();
      });
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

// Calls draw() now and again whenever the wrap's width changes, until the view is left.
function followWidth(wrap, seq, draw) {
  let drawnAt = null;
  const redraw = () => {
    drawnAt = wrap.getBoundingClientRect().width;
    draw();
  };
  redraw();
  if (typeof ResizeObserver !== "function") return;
  const observer = new ResizeObserver(() => {
    if (!current(seq) || !wrap.isConnected) {
      observer.disconnect();
      return;
    }
    if (wrap.getBoundingClientRect().width !== drawnAt) redraw();
  });
  observer.observe(wrap);
}

// The chart, drawn into `wrap` at its width: 1 SVG unit is 1 CSS pixel, so the labels' size is portal.css's.
// The labels are measured as they are placed: a day label that would not fit before the next day (or the chart's
// edge) is shortened to the day of the month, or left out, so none is ever cut off.
function drawChart(wrap, hours, view, select) {
  const W = wrap.getBoundingClientRect().width || 840;
  const H = CHART_HEIGHT;
  const padR = 8;
  const padB = 28;
  const padT = 10;
  const plotH = H - padB - padT;
  const max = Math.max(1, ...hours.map((hr) => hr.failed));
  const total = hours.reduce((a, hr) => a + hr.failed, 0);
  const chart = svg("svg", {
    viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: "chart", role: "img", "data-testid": "failure-chart", "data-width": W,
    "aria-label": `Deliveries that failed for good, per hour over the last 7 days: ${total} in all, at most ${max === 1 && total === 0 ? 0 : max} in one hour.`,
  });
  chart.append(svg("title", {}, "Failed deliveries per hour, last 7 days"));
  chart.append(svg("rect", { x: 0.5, y: 0.5, width: W - 1, height: H - 1, rx: 8, class: "frame" }));
  replaceContent(wrap, chart);
  // y labels (0, half, max), right-aligned in a margin as wide as the widest of them
  const yLabels = [0, 0.5, 1].map((frac) => {
    const label = svg("text", { class: "axis", "text-anchor": "end" }, String(Math.round(frac * max)));
    chart.append(label);
    return { frac, label };
  });
  const padL = Math.ceil(Math.max(...yLabels.map(({ label }) => label.getComputedTextLength()))) + 14;
  const plotW = W - padL - padR;
  const step = plotW / hours.length;
  for (const { frac, label } of yLabels) {
    const y = padT + plotH - frac * plotH;
    chart.insertBefore(svg("line", { x1: padL, x2: W - padR, y1: y, y2: y, class: "grid" }), label);
    label.setAttribute("x", String(padL - 6));
    label.setAttribute("y", String(y + 4));
  }
  // day boundaries in the browser's zone, labelled with weekday and date where those labels fit before the next
  // boundary, else with the date alone; a label that does not fit even so (a day just begun) is left out
  const days = [];
  hours.forEach((hr, i) => {
    if (hr.start.getHours() === 0) days.push({ x: padL + i * step, texts: [fmtWeekday.format(hr.start), fmtDayOfMonth.format(hr.start)] });
  });
  days.forEach((day, n) => {
    day.room = (n + 1 < days.length ? days[n + 1].x : padL + plotW) - day.x - 6;
    chart.append(svg("line", { x1: day.x, x2: day.x, y1: padT, y2: padT + plotH, class: "day-line" }));
    day.label = svg("text", { x: day.x + 3, y: H - 9, class: "axis" });
    chart.append(day.label);
    day.widths = day.texts.map((text) => {
      day.label.textContent = text;
      return day.label.getComputedTextLength();
    });
  });
  const form = days.some((day) => day.widths[0] > day.room && day.widths[1] <= day.room) ? 1 : 0;
  for (const day of days) {
    if (day.widths[form] <= day.room) day.label.textContent = day.texts[form];
    else day.label.remove();
  }
  const barW = Math.max(MIN_BAR_PX, step >= 4 ? step - 1 : step);
  let anchor = null;
  view.bars = hours.map((hr, i) => {
    const height = hr.failed ? Math.max(2, (hr.failed / max) * plotH) : 0;
    const x = padL + i * step;
    const barX = Math.min(Math.max(padL, x + (step - barW) / 2), padL + plotW - barW);
    const g = svg("g", { class: "bar-group" });
    // A full-height hit area makes empty hours selectable too.
    g.append(svg("rect", { x, y: padT, width: step, height: plotH, class: "hit" }));
    const bar = svg("rect", {
      x: barX, y: padT + plotH - height, width: barW, height,
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
}

// The replay's progress, polled every second until it completes. Its note is the message reporting the outcome: focus
// moves to it when the replay starts (a live region, so "Done: …" is announced when it comes).
function trackReplay(id, box, seq) {
  const stat = (label, testid) => h("div", { class: "metric" }, h("dt", {}, label), h("dd", { "data-testid": testid }, "0"));
  const status = h("span", { class: "badge badge-neutral", "data-testid": "replay-status" }, "running");
  const bar = h("progress", { max: "1", value: "0", "aria-label": "Replay progress" });
  const note = h("p", { class: "replay-note", "data-testid": "replay-note" }, "Replay started: its deliveries go out again at the endpoint's rate limit.");
  const panel = h("div", { class: "replay-progress", "data-testid": "replay-progress", "data-replay-id": id },
    h("p", { class: "strong" }, "Replay ", status),
    bar,
    h("dl", { class: "metrics compact" },
      stat("Matched", "replay-matched"),
      stat("Queued", "replay-queued"),
      stat("Delivered", "replay-delivered"),
      stat("Failed", "replay-failed"),
    ),
    note,
  );
  replaceContent(box, panel);
  focusMessage(note);
  let polls = 0;
  const poll = async () => {
    polls += 1;
    let r;
    try {
      r = await api("GET", `/v1/replays/${enc(id)}`);
    } catch (e) {
      if (!e.expired && current(seq)) replaceContent(note, h("span", { class: "error-text", "data-testid": "replay-poll-error" }, e.message));
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
      note.textContent = r.matched
        ? `Done: ${plural(r.delivered || 0, "delivery", "deliveries")} succeeded${r.failed ? `, ${r.failed} failed again` : ""}.`
        : "Done: no failed delivery matched this window.";
      return;
    }
    if (polls < REPLAY_POLL_LIMIT) later(poll, REPLAY_POLL_MS);
    else note.textContent = "Still running; reload the page later to see how it ended.";
  };
  poll();
}
