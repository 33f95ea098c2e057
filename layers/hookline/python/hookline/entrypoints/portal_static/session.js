// The page's session and the state every view shares: the token from the link (kept for this tab only), what
// GET /v1/session said, and the generation of the view shown, which async answers and timers check against.

const TOKEN_KEY = "hookline.portal.token";

export const state = {
  token: null,
  session: null,
  readOnly: true, // until the session says otherwise: never show a mutating control by mistake
  renderSeq: 0, // bumped on every navigation, so a slow answer for a page left behind is dropped
  timers: new Set(),
};

// The producer as the customer knows it: the tenant's portal settings (in the page), the session's, or a stand-in.
export function producerName() {
  const fromPage = (document.body.dataset.producer || "").trim();
  if (fromPage) return fromPage;
  const fromSession = state.session && typeof state.session.producer_name === "string" ? state.session.producer_name.trim() : "";
  return fromSession || "your provider";
}

// The token from the link's fragment, or from this tab's storage after a reload or a navigation; null without one.
export function readToken() {
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

export function forgetToken() {
  state.token = null;
  try {
    sessionStorage.removeItem(TOKEN_KEY);
  } catch (_) {
    /* nothing stored */
  }
}

// Retires the view shown so far (its timers stop; answers it still awaits are dropped, see current()) and
// returns the new view's generation.
export function startRender() {
  for (const t of state.timers) clearTimeout(t);
  state.timers.clear();
  state.renderSeq += 1;
  return state.renderSeq;
}

// A timeout that ends with the view that set it.
export function later(fn, ms) {
  const t = setTimeout(() => {
    state.timers.delete(t);
    fn();
  }, ms);
  state.timers.add(t);
}

// Whether the view of generation `seq` is still the one shown.
export function current(seq) {
  return seq === state.renderSeq;
}

// The customer's plan limits on an endpoint's pace, as far as the session names them.
export function ceiling() {
  const limits = (state.session && state.session.customer && state.session.customer.limits) || {};
  return { rate: limits.max_rate_per_second, concurrency: limits.max_concurrency };
}
