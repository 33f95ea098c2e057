"""Accessibility and layout checks the portal tests call on the view they show: axe-core at a desktop's and a phone's
width, every control reached by Tab with a visible focus ring, and nothing that overflows or is cut off.

axe-core (tests/browser/vendor/axe.min.js, pinned: see the README there) goes in as an inline script, which the portal's
CSP refuses: a test that calls `assert_accessible` is marked `@pytest.mark.axe`, and its page's context bypasses the CSP
(conftest.py). Every other test keeps the CSP enforced. The checks run within the test's own page, resized with
`set_viewport_size`: no extra browser, context or local mode.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Page

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
# WCAG 2.2 A and AA (axe tags each rule with the version that added it), and AAA contrast: the palette meets it (portal.css).
WCAG_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa")
AXE_OPTIONS = {"runOnly": {"type": "tag", "values": list(WCAG_TAGS)}, "rules": {"color-contrast-enhanced": {"enabled": True}}, "resultTypes": ["violations"]}
DESKTOP, PHONE = 1280, 390
HEIGHT = 800
MIN_LABEL_PX = 11
MIN_BAR_PX = 2
MIN_FOCUS_CONTRAST = 3.0

# Until the failures chart (if the view has one) is drawn for its wrap's current width: failures.js draws it again
# when the width changes, in a ResizeObserver callback, after the resize that set_viewport_size made.
_SETTLED = """() => {
  const chart = document.querySelector("[data-testid=failure-chart]");
  return !chart || Math.abs(Number(chart.dataset.width) - chart.parentElement.getBoundingClientRect().width) < 0.01;
}"""

_RUN_AXE = """(options) => axe.run(document, options).then((r) => r.violations.map((v) => ({
  id: v.id, impact: v.impact, help: v.help,
  nodes: v.nodes.map((n) => ({ target: n.target.join(" "), summary: n.failureSummary })),
})))"""


def resize(page: Page, width: int, height: int = HEIGHT) -> None:
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_function(_SETTLED, polling="raf")


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's violations of WCAG 2.2 A/AA and AAA contrast on the page as it is now (axe injected once per document)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    violations: list[dict[str, Any]] = page.evaluate(_RUN_AXE, AXE_OPTIONS)
    return violations


def _describe(violations: dict[int, list[dict[str, Any]]]) -> str:
    lines = []
    for width, found in violations.items():
        for v in found:
            lines.append(f"at {width} px: {v['id']} ({v['impact']}): {v['help']}")
            lines.extend(f"    {n['target']}: {' '.join(str(n['summary']).split())}" for n in v["nodes"][:8])
    return "\n".join(lines)


def assert_accessible(page: Page, view: str, widths: tuple[int, ...] = (DESKTOP, PHONE)) -> None:
    """No axe-core violation on the view shown, at each width (the page is resized, then put back as it was)."""
    size = page.viewport_size
    found: dict[int, list[dict[str, Any]]] = {}
    try:
        for width in widths:
            resize(page, width)
            violations = axe_violations(page)
            if violations:
                found[width] = violations
    finally:
        if size is not None:
            resize(page, size["width"], size["height"])
    assert not found, f"axe-core found violations on the {view}:\n{_describe(found)}"


# Every control a person could Tab to, visible and enabled, tagged with data-a11y-id; then a focusin listener records,
# for each element focused, its tag and the focus ring it shows against the background around it.
_TAG_CONTROLS = """() => {
  const selector = "a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]:not([tabindex='-1'])";
  const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden" && !el.closest("[hidden], dialog:not([open]), [inert]");
  const name = (el) => `${el.tagName.toLowerCase()} ${el.getAttribute("data-testid") || el.id || (el.textContent || "").trim().slice(0, 30)}`;
  for (const el of document.querySelectorAll("[data-a11y-id]")) el.removeAttribute("data-a11y-id");
  const controls = [...document.querySelectorAll(selector)].filter((el) => !el.disabled && shown(el));
  controls.forEach((el, i) => el.setAttribute("data-a11y-id", String(i)));
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const luminance = ([r, g, b]) => [r, g, b].map((v) => v / 255).map((v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
    .reduce((acc, v, i) => acc + v * [0.2126, 0.7152, 0.0722][i], 0);
  const behind = (el) => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const c = rgb(getComputedStyle(p).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  if (window.__onFocus) document.removeEventListener("focusin", window.__onFocus, true);
  window.__focused = [];
  window.__onFocus = (ev) => {
    const el = ev.target;
    const s = getComputedStyle(el);
    const [a, b] = [luminance(rgb(s.outlineColor)), luminance(behind(el))].sort((x, y) => y - x);
    window.__focused.push({ id: el.getAttribute("data-a11y-id"), what: name(el), style: s.outlineStyle, width: parseFloat(s.outlineWidth), contrast: (a + 0.05) / (b + 0.05) });
  };
  document.addEventListener("focusin", window.__onFocus, true);
  return controls.map(name);
}"""


def assert_keyboard_reachable(page: Page, view: str) -> None:
    """Tab, pressed until focus has been round the page (it leaves the page once and comes back at the top), reaches every
    control of the view, and each shows a focus ring: an outline at least 2 px wide whose colour has 3:1 contrast with
    the background around it. (A date-time field takes a Tab for each of its parts, so the presses are counted as they go.)"""
    controls: list[str] = page.evaluate(_TAG_CONTROLS)
    assert controls, f"the {view} has no control to reach"
    reached: set[int] = set()
    focused: list[dict[str, Any]] = []
    for _ in range(4 * len(controls) // 10 + 2):
        for _ in range(10):
            page.keyboard.press("Tab")
        focused = page.evaluate("() => window.__focused")
        reached = {int(f["id"]) for f in focused if f["id"] is not None}
        if len(reached) == len(controls):
            break
    missed = [what for i, what in enumerate(controls) if i not in reached]
    assert not missed, f"Tab never reached on the {view}: {missed}"
    unringed = [f["what"] for f in focused if f["id"] is not None and (f["style"] == "none" or f["width"] < 2 or f["contrast"] < MIN_FOCUS_CONTRAST)]
    assert not unringed, f"no visible focus ring (2 px, {MIN_FOCUS_CONTRAST}:1) on the {view}: {unringed}"


# What sticks out sideways: the document wider than the window, an element past either edge, or a box that clips its
# own content (overflow hidden or clip, and wider content). Screen-reader-only text is 1 px and clipped by design, and a
# text field scrolls a value longer than itself.
_OVERFLOW = """() => {
  const vw = document.documentElement.clientWidth;
  const found = [];
  if (document.documentElement.scrollWidth > vw) found.push(`the document is ${document.documentElement.scrollWidth} px wide in ${vw}`);
  for (const el of document.body.querySelectorAll("*")) {
    if (!el.getClientRects().length || el.closest(".sr-only, [hidden], dialog:not([open]), svg title")) continue;
    const r = el.getBoundingClientRect();
    const name = `${el.tagName.toLowerCase()}${el.getAttribute("data-testid") ? `[${el.getAttribute("data-testid")}]` : ""}${el.className && typeof el.className === "string" ? `.${el.className.split(" ").join(".")}` : ""}`;
    if (r.width && (r.left < -0.5 || r.right > vw + 0.5)) found.push(`${name} spans ${Math.round(r.left)}..${Math.round(r.right)} px`);
    const s = getComputedStyle(el);
    if (["hidden", "clip"].includes(s.overflowX) && !el.matches("input, textarea, select") && el.scrollWidth > el.clientWidth + 1) found.push(`${name} clips its content (${el.scrollWidth} in ${el.clientWidth} px)`);
  }
  return found;
}"""


def overflowing(page: Page) -> list[str]:
    found: list[str] = page.evaluate(_OVERFLOW)
    return found


# The tab bar's labels: each tab's text (a Range over it) inside its tab and inside the bar.
_TAB_LABELS = """() => {
  const bar = document.querySelector("nav.tabs");
  const b = bar.getBoundingClientRect();
  return [...bar.querySelectorAll(".tab")].map((tab) => {
    const range = document.createRange();
    range.selectNodeContents(tab);
    const t = range.getBoundingClientRect();
    const own = tab.getBoundingClientRect();
    const inside = (r, c) => r.left >= c.left - 0.5 && r.right <= c.right + 0.5 && r.top >= c.top - 0.5 && r.bottom <= c.bottom + 0.5;
    return { text: tab.textContent, inBar: inside(own, b) && inside(t, b), inTab: inside(t, own) && tab.scrollWidth <= tab.clientWidth };
  });
}"""


def tab_labels(page: Page) -> list[dict[str, Any]]:
    labels: list[dict[str, Any]] = page.evaluate(_TAB_LABELS)
    return labels


# The failures chart as shown: each label's text, size on screen (font size times the SVG's scale) and whether it lies
# inside the chart; each bar's width on screen and, for the hours with failures, whether the bar lies inside the chart.
_CHART = """() => {
  const chart = document.querySelector("[data-testid=failure-chart]");
  const c = chart.getBoundingClientRect();
  const inside = (r) => r.left >= c.left - 0.5 && r.right <= c.right + 0.5 && r.top >= c.top - 0.5 && r.bottom <= c.bottom + 0.5;
  const labels = [...chart.querySelectorAll("text")].map((t) => ({
    text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a, inside: inside(t.getBoundingClientRect()),
  }));
  const bars = [...chart.querySelectorAll("[data-testid=chart-bar]")].map((b) => ({
    count: Number(b.dataset.count), px: b.width.baseVal.value * b.getScreenCTM().a, inside: inside(b.getBoundingClientRect()),
  }));
  return { width: c.width, labels, bars };
}"""


def assert_chart_fits(page: Page) -> dict[str, Any]:
    """The failures chart's labels are all inside it and at least 11 px; every hour's bar is at least 2 px wide, and each
    bar with failures lies inside the chart. Returns what was measured."""
    chart: dict[str, Any] = page.evaluate(_CHART)
    labels, bars = chart["labels"], chart["bars"]
    assert len(labels) >= 3 + 5, f"the chart lost its labels: {labels}"  # 0, half and max; a label for (nearly) every day
    assert [label["text"] for label in labels if not label["inside"]] == [], labels
    assert min(label["px"] for label in labels) >= MIN_LABEL_PX, labels
    assert min(bar["px"] for bar in bars) >= MIN_BAR_PX - 1e-3, min(bar["px"] for bar in bars)
    assert [bar for bar in bars if bar["count"] and not bar["inside"]] == []
    return chart
