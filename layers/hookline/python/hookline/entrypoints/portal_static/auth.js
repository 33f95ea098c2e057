// The settings tab's authentication panel: how hookline proves itself to the receiver beyond the signature (the
// endpoint's `auth`), shown as the API shows it: its type and the fields that are not secret. A session that may change
// the endpoint replaces it as a whole (the secret typed again: neither the API nor this page ever gives it back) or
// removes it. HTTP endpoints only.

import { api, enc } from "./api.js";
import { busy, button, errorBox, field, h, mutating, okBox, report, section } from "./dom.js";
import { awsDestination } from "./format.js";
import { state } from "./session.js";

// Each type: its label, and its fields as the API names them: [name, label, how it is typed].
const TYPES = [
  ["oauth2_client_credentials", "OAuth2 client credentials", [
    ["token_url", "Token URL", "line"], ["client_id", "Client id", "line"], ["client_secret", "Client secret", "secret"],
    ["scope", "Scope (optional)", "line"], ["audience", "Audience (optional)", "line"],
  ]],
  ["mtls", "Client certificate (mTLS)", [["certificate", "Certificate (PEM)", "pem"], ["private_key", "Private key (PEM)", "pem"]]],
  ["basic", "HTTP Basic", [["username", "Username", "line"], ["password", "Password", "secret"]]],
  ["bearer", "Bearer token", [["token", "Token", "secret"]]],
];
// The fields the API shows, in this order.
const SHOWN = [["token_url", "Token URL"], ["client_id", "Client id"], ["scope", "Scope"], ["audience", "Audience"], ["username", "Username"], ["certificate", "Certificate"]];
const KEPT_SECRET = "Its secret is kept encrypted and never shown, here or by the API.";

export function authSection(detail) {
  if (awsDestination(detail)) return null;
  const auth = detail.auth;
  const known = auth ? TYPES.find(([t]) => t === auth.type) : null;
  const rows = [["Type", h("span", { "data-testid": "auth-type" }, auth ? (known ? known[1] : auth.type) : "None: the signature alone")]];
  for (const [name, label] of SHOWN) {
    if (auth && typeof auth[name] === "string") rows.push([label, h(name === "certificate" ? "pre" : "span", { class: "mono", "data-testid": `auth-${name}` }, auth[name])]);
  }
  const panel = section("Authentication", "authentication",
    h("dl", { class: "kv" }, rows.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
    auth ? h("p", { class: "muted" }, KEPT_SECRET) : null,
  );
  if (!state.readOnly) panel.append(authForm(detail, panel));
  return panel;
}

function authForm(detail, panel) {
  const result = h("div", { class: "result", "data-testid": "auth-result", "aria-live": "polite" });
  const kind = h("select", { "data-testid": "auth-kind" }, TYPES.map(([t, label]) => h("option", { value: t }, label)));
  if (detail.auth) kind.value = detail.auth.type;
  const inputs = h("div", { class: "auth-fields" });
  let typed = {};
  const showFields = () => {
    typed = {};
    inputs.replaceChildren(...fieldsOf(kind.value).map(([name, label, how]) => {
      const input = how === "pem"
        ? h("textarea", { rows: "4", spellcheck: "false", class: "mono", "data-testid": `auth-input-${name}` })
        : h("input", { type: how === "secret" ? "password" : "text", autocomplete: "off", "data-testid": `auth-input-${name}` });
      typed[name] = input;
      return field(`auth-${name}-input`, label, input);
    }));
  };
  kind.addEventListener("change", showFields);
  showFields();
  const save = mutating(button("Save authentication", { class: "btn btn-primary", "data-testid": "save-auth" }, () => {
    const given = { type: kind.value };
    for (const [name, input] of Object.entries(typed)) if (input.value !== "") given[name] = input.value;
    return change(detail, panel, given, save, result, "Authentication saved.");
  }));
  const remove = detail.auth
    ? mutating(button("Remove authentication", { class: "btn btn-secondary", "data-testid": "remove-auth" }, () => change(detail, panel, null, remove, result, "Authentication removed.")))
    : null;
  return h("div", { class: "auth-form" },
    h("p", {}, detail.auth ? "Replace it (every field, the secret too) or remove it:" : "Add one:"),
    field("auth-kind-input", "Type", kind),
    inputs,
    h("div", { class: "actions" }, save, remove),
    result,
  );
}

function fieldsOf(type) {
  const known = TYPES.find(([t]) => t === type);
  return known ? known[2] : [];
}

async function change(detail, panel, auth, btn, result, done) {
  busy(btn, true, "Saving…");
  try {
    const updated = await api("PATCH", `/v1/endpoints/${enc(detail.id)}`, { auth });
    detail.auth = updated ? updated.auth : null;
    const fresh = authSection(detail);
    panel.replaceWith(fresh);
    report(fresh.querySelector('[data-testid="auth-result"]') || fresh, okBox(done, "auth-saved"));
  } catch (e) {
    busy(btn, false);
    if (e.expired) return;
    report(result, errorBox(e.message, "auth-error"));
  }
}
