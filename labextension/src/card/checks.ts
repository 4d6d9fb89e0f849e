/**
 * Steps that check themselves (DESIGN section 17). Under each step with a check: the check as
 * code and what the notebook said of it ("check passed in cell [7]", "check failed in cell [9]:
 * False", "not run since completed", "unapproved: changed after your approval, not run"), and,
 * on a live card, a button that runs it now in the notebook. In the editor: the field where the
 * person writes or edits a step's check before approving it. Only a check that passed says a
 * step was checked; nothing here says a step was verified.
 */

import type { CheckState, CheckStatus, Snapshot, Step } from "../types";
import type { CardContext } from "./context";
import { button, h } from "./dom";
import type { Draft, DraftStep } from "./state";
import type { IconName } from "./icons";
import { icon } from "./icons";

/** DESIGN.md section 17: a check is 1 to 240 UTF-8 bytes of one Python expression. */
export const MAX_CHECK_BYTES = 240;
// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const HIDDEN = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
const STATUSES: ReadonlySet<string> = new Set(["passed", "failed", "not_run", "unapproved"]);

const ICONS: Record<CheckStatus, IconName> = {
  passed: "check",
  failed: "failed",
  not_run: "pending",
  unapproved: "alert",
};

/** The step's entry of the snapshot's `checks`; none on a card saved before checks existed. */
export function checkOf(snapshot: Snapshot, stepId: string): CheckState | null {
  const all = snapshot.checks;
  if (!all || typeof all !== "object" || !Object.prototype.hasOwnProperty.call(all, stepId)) return null;
  const entry = all[stepId];
  return entry && typeof entry === "object" && STATUSES.has(entry.status) ? entry : null;
}

/** Where it ran: "in cell [7]", or outside a cell (the card's Run check, between cells). */
function where(entry: CheckState): string {
  return typeof entry.execution_count === "number" ? ` in cell [${entry.execution_count}]` : ", run outside a cell";
}

/** What the card says of a step's check (the Python side's check_words says the same). */
export function checkWords(entry: CheckState, step: Step, snapshot: Snapshot): string {
  switch (entry.status) {
    case "passed":
      return `check passed${where(entry)}`;
    case "failed":
      return `check failed${where(entry)}: ${entry.error ?? entry.value ?? ""}`;
    case "not_run":
      return step.status === "completed" ? "not run since completed" : "not run yet: it runs once the step is completed";
    default:
      if (snapshot.pending_proposal_hash) return "proposed: runs in the notebook once you approve it and the step is completed";
      if (!snapshot.approved_proposal_hash) return "unapproved: not in a plan you approved, not run";
      return "unapproved: changed after your approval, not run";
  }
}

/** The line under a step with its check, or null when the step has none. */
export function stepCheck(ctx: CardContext, step: Step): HTMLElement | null {
  const check = typeof step.check === "string" ? step.check : null;
  if (check === null) return null;
  const entry = checkOf(ctx.snapshot, step.id);
  const status = entry?.status ?? null;
  const line = h(
    "div",
    {
      class: `jp-plans-step-check${status ? ` jp-plans-check-${status.replace("_", "-")}` : ""}`,
      attrs: { role: "group", "aria-label": `Check of step ${step.id}` },
    },
    h("span", "jp-plans-meta-label", "check: "),
    h("code", "jp-plans-check-code", check),
  );
  if (entry) {
    line.append(
      h("span", "jp-plans-check-status", icon(ICONS[entry.status]), checkWords(entry, step, ctx.snapshot)),
    );
  }
  const run = ctx.actions?.check;
  if (run && !ctx.frame.frozen) {
    line.append(
      button(
        {
          class: "jp-plans-button-ghost jp-plans-check-run",
          key: `check:${step.id}`,
          label: `Run the check of step ${step.id} now, in the notebook`,
          title: "Run this check now in the notebook's kernel",
          onClick: () => run(step.id),
        },
        "Run check",
      ),
    );
  }
  return line;
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** What stops a step's check from being saved, in one line, or null (the kernel says whether
 * it is one Python expression when the edit is saved). */
export function checkProblem(step: Step): string | null {
  const check = step.check;
  if (typeof check !== "string") return null;
  const bytes = utf8Length(check);
  if (bytes > MAX_CHECK_BYTES) return `Step ${step.id}: the check is ${bytes} bytes; at most ${MAX_CHECK_BYTES}.`;
  if (CONTROL.test(check)) return `Step ${step.id}: the check holds a control character; keep it to one line.`;
  if (HIDDEN.test(check)) return `Step ${step.id}: the check holds a character that does not show as itself.`;
  return null;
}

function setCheck(draft: Draft, id: string, text: string): void {
  for (const phase of draft.phases) {
    const step = phase.steps.find((candidate) => candidate.id === id);
    // An empty field is no check at all; spaces around an expression are not part of it.
    if (step) step.check = text.trim() === "" ? null : text.trim();
  }
}

/** The editor's field for a step's check: optional, one Python expression. */
export function checkField(ctx: CardContext, draft: Draft, step: DraftStep, busy: boolean, refresh: () => void): HTMLElement {
  const inputId = `${ctx.state.id}-check-${step.id}`;
  const input = h("input", {
    class: "jp-plans-input jp-plans-check-input",
    key: `check-input:${step.id}`,
    attrs: {
      id: inputId,
      type: "text",
      "data-step-id": `check:${step.id}`,
      "aria-label": `Check of step ${step.id} (optional): one Python expression, true once the step is done`,
      placeholder: "Check (optional): a Python expression, true once the step is done",
      disabled: busy,
      autocomplete: "off",
      spellcheck: "false",
    },
  });
  input.value = step.check ?? "";
  input.addEventListener("input", () => {
    setCheck(draft, step.id, input.value);
    refresh();
  });
  return h(
    "div",
    "jp-plans-check-field",
    h("label", { class: "jp-plans-meta-label", attrs: { for: inputId, title: `Check of step ${step.id}` } }, "check: "),
    input,
  );
}
