// Routing: the view is named in the query string (`view`, `id`, `tab`, beside the link's `t`), so each view has a
// real address; links and navigate() change it without a reload and have the entry render the view it names.

import { h } from "./dom.js";

// The entry's render(notice), registered at boot (the entry imports the views, and the views import this module).
let renderView = null;

export function onNavigate(render) {
  renderView = render;
}

// The view the address names: the endpoints overview unless it says otherwise.
export function route() {
  const params = new URLSearchParams(location.search);
  return { view: params.get("view") || "endpoints", id: params.get("id") || "", tab: params.get("tab") || "settings" };
}

function hrefFor(params) {
  const q = new URLSearchParams(location.search);
  for (const key of ["view", "id", "tab"]) q.delete(key);
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  return `${location.pathname}?${q.toString()}`;
}

// Shows the view `params` name, as a new history entry or (options.replace) in place of the current one, with
// options.notice, if given, in the notice above it.
export function navigate(params, options = {}) {
  const url = hrefFor(params);
  if (options.replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  renderView(options.notice);
}

// An in-page link: a real <a href> (middle-click, copy link), handled without a reload.
export function link(label, params, attrs) {
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
