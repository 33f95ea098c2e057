// The settings tab's destination panel, for an endpoint that delivers into the customer's AWS account: its type and
// address, the role hookline assumes (none on an earlier release's endpoint: it is not sent to until one is set), the external id that
// role must require, and the role's CloudFormation template (GET /v1/endpoints/{id}/role-template) as a file to deploy.
// Reading the template changes nothing, so read-only sessions get it too.

import { api, enc } from "./api.js";
import { busy, button, clear, errorBox, h, okBox, section } from "./dom.js";
import { awsDestination, destinationAddress, destinationLabel } from "./format.js";
import { producerName } from "./session.js";

const TEMPLATE_FILE = "role.json";
const DEPLOY_COMMAND = `aws cloudformation deploy --template-file ${TEMPLATE_FILE} --stack-name hookline-role --capabilities CAPABILITY_NAMED_IAM`;
const REVOKE_AFTER_MS = 60 * 1000; // the object URL outlives the click long enough for the browser to save the file
const NO_ROLE = "none: nothing is delivered until a role is set";

// null for an HTTP endpoint: its URL is all there is to show.
export function destinationSection(detail) {
  const d = awsDestination(detail);
  if (!d) return null;
  const rows = [
    ["Type", h("span", { "data-testid": "destination-type" }, destinationLabel(d))],
    ["Address", h("span", { class: "mono", "data-testid": "destination-address" }, destinationAddress(d) || "—")],
  ];
  if (typeof d.source === "string" && d.source) rows.push(["Event source", h("span", { class: "mono" }, d.source)]);
  rows.push(["Role", d.role_arn ? h("span", { class: "mono", "data-testid": "destination-role" }, d.role_arn) : h("span", { "data-testid": "destination-role" }, NO_ROLE)]);
  // One click selects the whole id (portal.css: .select-all), ready to copy.
  rows.push(["External id", h("code", { class: "mono select-all", "data-testid": "destination-external-id", title: "Click to select, then copy" }, d.external_id || "—")]);
  return section("Destination", "destination",
    h("dl", { class: "kv" }, rows.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
    h("p", { class: "muted" }, "hookline assumes the role with this external id (sts:ExternalId), so no one else can make it deliver with your role."),
    templatePart(detail, d),
  );
}

function templatePart(detail, d) {
  const result = h("div", { class: "result", "data-testid": "role-template-result", "aria-live": "polite" });
  const download = button("Download the role's CloudFormation template", { class: "btn btn-secondary", id: "download-role-template", "data-testid": "download-role-template" }, async () => {
    busy(download, true, "Preparing the template…");
    clear(result);
    try {
      const template = await api("GET", `/v1/endpoints/${enc(detail.id)}/role-template`);
      offerFile(TEMPLATE_FILE, `${JSON.stringify(template, null, 2)}\n`);
      result.append(okBox(`Saved as ${TEMPLATE_FILE}.`, "role-template-saved"));
    } catch (e) {
      if (!e.expired) result.append(errorBox(e.message, "role-template-error"));
    } finally {
      busy(download, false);
    }
  });
  const arn = d.role_arn
    ? "The stack creates the role named above; its output RoleArn is this destination's role_arn."
    : `Its output RoleArn is this destination's role_arn: give it to ${producerName()} to set on this endpoint.`;
  return h("div", { class: "role-template" },
    h("p", {}, "The template makes the role in your AWS account: it trusts hookline only with this endpoint's external id, and allows the one delivery action on this destination alone. Deploy it with:"),
    h("pre", { class: "command", "data-testid": "deploy-command" }, DEPLOY_COMMAND),
    h("p", { class: "hint" }, arn, " For a destination encrypted with your own KMS key, add --parameter-overrides KmsKeyArn=<the key's ARN>."),
    h("div", { class: "actions" }, download),
    result,
  );
}

// A download of `text` as a file: a Blob behind an object URL on an <a download> (no data: URL or inline script, so
// the page's CSP allows it).
function offerFile(name, text) {
  const href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const a = h("a", { href, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), REVOKE_AFTER_MS);
}
