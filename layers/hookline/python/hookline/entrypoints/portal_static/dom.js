// DOM helpers every view uses, and the page's fixed elements: the view root, the notice, the confirm dialog.
//
// Safety contract: every value that comes from the API reaches the DOM through textContent or setAttribute (see
// h() and svg() below), never through innerHTML, so an endpoint description or a receiver's response body shows
// as characters. The page runs under a strict CSP (no inline script or style), so styling is by class names from
// portal.css only.

import { state } from "./session.js";

const SVG_NS = "http://www.w3.org/2000/svg";

// h("p", {class: "x", "data-testid": "y"}, "text", childNode): attributes by setAttribute, strings as text nodes.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  applyAttrs(el, attrs);
  append(el, children);
  return el;
}

export function svg(tag, attrs, ...children) {
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

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export function replaceContent(el, ...children) {
  clear(el);
  append(el, children);
  return el;
}

// A control that changes something. Read-only sessions never get one: callers return null instead.
export function mutating(node) {
  if (state.readOnly) return null;
  node.setAttribute("data-mutating", "");
  return node;
}

export function button(label, attrs, onClick) {
  return h("button", { type: "button", class: "btn", ...attrs, onclick: onClick }, label);
}

export function field(id, label, input, hint) {
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

// A button at work: its label says so and it is disabled meanwhile. Disabling the focused button drops focus to
// <body>; when it is enabled again and focus has not gone anywhere else, focus comes back to it.
export function busy(btn, on, busyLabel) {
  if (!btn) return;
  if (on) {
    btn.dataset.label = btn.textContent;
    btn.dataset.hadFocus = String(document.activeElement === btn);
    btn.textContent = busyLabel || "Working…";
    btn.disabled = true;
    btn.setAttribute("aria-busy", "true");
  } else {
    btn.textContent = btn.dataset.label || btn.textContent;
    btn.disabled = false;
    btn.removeAttribute("aria-busy");
    if (btn.dataset.hadFocus === "true" && focusLost() && btn.isConnected) btn.focus();
    delete btn.dataset.hadFocus;
  }
}

function focusLost() {
  return !document.activeElement || document.activeElement === document.body;
}

// The outcome of something the customer pressed (Save, Retry, Replay, Rotate…): shown in `box`, and focus moves
// to it, since the pressed button may be gone or disabled by then and focus must not fall back to <body>.
export function report(box, message, ...more) {
  replaceContent(box, message, ...more);
  return focusMessage(message);
}

// A message on the page that reports an outcome, focused: a live region (okBox's role=status, errorBox's role=alert;
// status unless it says otherwise), so a later change to its words is announced too, and tabindex=-1, so the script
// can focus it without making it a Tab stop.
export function focusMessage(message) {
  if (!message.getAttribute("role")) message.setAttribute("role", "status");
  message.setAttribute("tabindex", "-1");
  message.focus();
  return message;
}

export function errorBox(message, testid) {
  return h("p", { class: "alert alert-error", role: "alert", "data-testid": testid || "error" }, message);
}

export function okBox(message, testid) {
  return h("p", { class: "alert alert-ok", role: "status", "data-testid": testid || "ok" }, message);
}

// A view's title, focusable so that focusHeading() can move keyboard and screen-reader users to it.
export function heading(level, text, attrs) {
  return h(`h${level}`, { tabindex: "-1", class: "view-title", ...attrs }, text);
}

export function metric(label, valueNode, testid) {
  return h("div", { class: "metric" }, h("dt", {}, label), h("dd", { "data-testid": testid }, valueNode));
}

export function section(title, testid, ...children) {
  const id = `section-${testid}`;
  return h("section", { class: "panel", "data-testid": testid, "aria-labelledby": id }, h("h2", { id }, title), ...children);
}

// ---------------------------------------------------------------- the page's fixed elements

export function viewRoot() {
  return document.getElementById("view");
}

// The notice above the view (role=status): a message, or nothing and hidden.
export function notice(message) {
  const box = document.getElementById("notice");
  if (!message) {
    box.hidden = true;
    box.textContent = "";
    return;
  }
  box.textContent = message;
  box.hidden = false;
}

// After an action that leaves the view (Delete, Re-enable, Upgrade), the notice reports its outcome: focus moves
// to it (index.html gives it tabindex=-1), and the new view's heading leaves it there (focusHeading).
export function focusNotice() {
  const box = document.getElementById("notice");
  if (!box.hidden) box.focus();
}

let firstRender = true;

// The first view keeps the browser's own focus (the top of the page); later ones move it to their heading, unless
// focus is already in the view or on the notice reporting what just happened.
export function focusHeading(root) {
  if (firstRender) {
    firstRender = false;
    return;
  }
  const title = root.querySelector(".view-title");
  const active = document.activeElement;
  if (title && active !== title && !root.contains(active) && active !== document.getElementById("notice")) title.focus({ preventScroll: false });
}

// The shared <dialog>: resolves true when confirmed. Esc and Cancel resolve false; focus returns to the opener.
export function confirmDialog(title, text, confirmLabel) {
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
