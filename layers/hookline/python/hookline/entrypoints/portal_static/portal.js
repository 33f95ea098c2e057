// hookline's customer portal: plain ES2020 modules, no framework, no build step; each file is served as it is
// from /portal/<name>. This entry reads the session from the link, fills the top bar and renders the view the
// address names (overview.js, endpoint.js with its settings, deliveries and failures tabs, create.js).
// The safety contract (values as text, never as markup) is in dom.js.

import { api, enc } from "./api.js";
import { renderCreate } from "./create.js";
import { button, clear, errorBox, focusNotice, h, heading, notice, replaceContent, viewRoot } from "./dom.js";
import { renderEndpoint } from "./endpoint.js";
import { showExpired } from "./expired.js";
import { timeEl } from "./format.js";
import { onNavigate, route } from "./nav.js";
import { renderOverview } from "./overview.js";
import { producerName, readToken, startRender, state } from "./session.js";

// Every navigation starts here; a view's heading takes focus so keyboard and screen-reader users land on it, or,
// when the navigation reports an action's outcome (`message`), the notice saying it does.
function render(message) {
  const seq = startRender();
  notice(message);
  const r = route();
  const root = clear(viewRoot());
  if (r.view === "endpoint" && r.id) renderEndpoint(root, r.id, r.tab, seq);
  else if (r.view === "new" && !state.readOnly) renderCreate(root);
  else renderOverview(root, seq);
  if (message) focusNotice();
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

onNavigate(render);
// A module script runs once the document is parsed, as a deferred one does.
boot();
