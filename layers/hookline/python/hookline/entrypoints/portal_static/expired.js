// The page a customer sees once the link is over (expired, withdrawn, or its customer deleted): it names the
// producer to ask for a new link, and the token is forgotten.

import { clear, h, heading, notice, viewRoot } from "./dom.js";
import { forgetToken, producerName, startRender } from "./session.js";

export function showExpired() {
  startRender();
  forgetToken();
  document.getElementById("session-info").hidden = true;
  notice(null);
  const producer = producerName();
  const root = clear(viewRoot());
  root.append(
    h(
      "section",
      { class: "expired", "data-testid": "expired" },
      h("div", { class: "expired-icon", "aria-hidden": "true" }),
      heading(1, "This link has expired"),
      h("p", { class: "expired-message", "data-testid": "expired-message" }, `This link has expired; ask ${producer} for a new one.`),
      h("p", { class: "muted" }, "Portal links work for a limited time and can be withdrawn. Your endpoints keep receiving webhooks meanwhile."),
    ),
  );
  document.title = "Link expired";
  root.querySelector(".view-title").focus();
}
