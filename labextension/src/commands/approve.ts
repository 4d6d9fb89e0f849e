/**
 * The palette's approval: a dialog that shows the waiting proposal (its explanation, step
 * count and short hash), so that what is approved is exactly the proposal the person read.
 */

import { Dialog, showDialog } from "@jupyterlab/apputils";
import { Widget } from "@lumino/widgets";
import { h, plural, shortHash } from "../card/dom";
import type { Snapshot } from "../types";

/** The dialog's body: model-authored text goes in as text nodes only. */
function proposalBody(snapshot: Snapshot, hash: string): Widget {
  const plan = snapshot.plan;
  const steps = plan?.steps.length ?? 0;
  const titled = plan?.phases.filter((phase) => phase.title !== null).length ?? 0;
  const count = plural(steps, "step", "steps") + (titled > 1 ? ` in ${titled} phases` : "");
  const explanation = plan?.explanation?.trim()
    ? h("p", "jp-plans-approve-explanation", plan.explanation)
    : h("p", "jp-plans-approve-explanation jp-plans-approve-muted", "The proposal has no explanation.");
  const facts = h(
    "p",
    "jp-plans-approve-facts",
    h("span", "jp-plans-approve-steps", count),
    h("span", { class: "jp-plans-approve-muted", attrs: { "aria-hidden": "true" } }, " · "),
    "proposal ",
    h("code", { class: "jp-plans-approve-hash", attrs: { title: hash } }, shortHash(hash)),
  );
  if (snapshot.session_id && snapshot.session_id !== "default") {
    facts.append(
      h("span", { class: "jp-plans-approve-muted", attrs: { "aria-hidden": "true" } }, " · "),
      "session ",
      h("code", null, snapshot.session_id),
    );
  }
  const node = h(
    "div",
    "jp-plans-approve-dialog",
    explanation,
    facts,
    h(
      "p",
      "jp-plans-approve-muted",
      "Its steps are on the plan card and in the Plan panel. If the agent submits another " +
        "proposal before you confirm, nothing is approved.",
    ),
  );
  return new Widget({ node });
}

/**
 * Shows the proposal waiting in `snapshot` and resolves true only when the person chose
 * Approve. The caller approves `snapshot.pending_proposal_hash`, the hash shown here.
 */
export async function confirmApproval(notebook: string, snapshot: Snapshot): Promise<boolean> {
  const hash = snapshot.pending_proposal_hash;
  if (!hash) return false;
  const result = await showDialog({
    title: `Approve the proposal for ${notebook}?`,
    body: proposalBody(snapshot, hash),
    buttons: [
      Dialog.cancelButton({ label: "Cancel" }),
      Dialog.okButton({ label: "Approve", caption: `Approve proposal ${shortHash(hash)}` }),
    ],
  });
  return result.button.accept;
}
