/** The inline editor: each step's text as an input, with move, remove, add, save, cancel. */

import { checkField } from "./checks";
import type { CardContext } from "./context";
import { button, h } from "./dom";
import type { Draft, DraftStep } from "./state";
import { startInflight } from "./state";
import {
  MAX_STEPS,
  addStep,
  canMove,
  effectiveDependsOn,
  isUnchanged,
  moveStep,
  problems,
  removeStep,
  setDescription,
  stepCount,
  toEdit,
} from "./draft";
import { icon, statusIcon } from "./icons";
import { phaseHeader, sizeIdColumn, stepMeta } from "./steps";

function nextFocusAfterRemoval(draft: Draft, phaseIndex: number, id: string): string {
  const steps = draft.phases[phaseIndex].steps;
  const index = steps.findIndex((step) => step.id === id);
  const neighbour = steps[index + 1] ?? steps[index - 1];
  return neighbour ? `remove:${neighbour.id}` : `add:${phaseIndex}`;
}

function editRow(ctx: CardContext, draft: Draft, phaseIndex: number, step: DraftStep, dependsOn: string[], refresh: () => void, busy: boolean): HTMLElement {
  const { state } = ctx;
  const inputId = `${state.id}-edit-${step.id}`;
  const input = h("input", {
    class: "jp-plans-input",
    key: `desc:${step.id}`,
    attrs: { id: inputId, type: "text", "data-step-id": step.id, placeholder: "What this step does", disabled: busy, autocomplete: "off" },
  });
  input.value = step.description;
  input.addEventListener("input", () => {
    setDescription(draft, step.id, input.value);
    refresh();
  });
  const move = (direction: -1 | 1, key: string) => () => {
    moveStep(draft, step.id, direction);
    // Focus stays on the same button, or its twin once the step reaches an end.
    state.focusNext = canMove(draft, step.id, direction) ? key : key.startsWith("up:") ? `down:${step.id}` : `up:${step.id}`;
    ctx.rerender();
  };
  return h(
    "li",
    { class: `jp-plans-edit-row jp-plans-status-${step.status}${step.isNew ? " jp-plans-change-added" : ""}`, attrs: { "data-step-id": step.id } },
    h("span", "jp-plans-step-icon", statusIcon(step.status)),
    h("label", { class: "jp-plans-step-id", attrs: { for: inputId, title: `Description of step ${step.id}` } }, step.id),
    h(
      "div",
      "jp-plans-edit-body",
      input,
      checkField(ctx, draft, step, busy, refresh),
      stepMeta({ depends_on: dependsOn, acceptance: step.acceptance }),
    ),
    h(
      "div",
      { class: "jp-plans-edit-tools", attrs: { role: "group", "aria-label": `Step ${step.id}` } },
      button(
        { class: "jp-plans-button-icon", key: `up:${step.id}`, label: `Move ${step.id} up`, disabled: busy || !canMove(draft, step.id, -1), onClick: move(-1, `up:${step.id}`) },
        icon("up"),
      ),
      button(
        { class: "jp-plans-button-icon", key: `down:${step.id}`, label: `Move ${step.id} down`, disabled: busy || !canMove(draft, step.id, 1), onClick: move(1, `down:${step.id}`) },
        icon("down"),
      ),
      button(
        {
          class: "jp-plans-button-icon jp-plans-button-danger",
          key: `remove:${step.id}`,
          label: `Remove ${step.id}`,
          disabled: busy,
          onClick: () => {
            state.focusNext = nextFocusAfterRemoval(draft, phaseIndex, step.id);
            removeStep(draft, step.id);
            ctx.rerender();
          },
        },
        icon("remove"),
      ),
    ),
  );
}

/** What the editor says above the steps: what saving does, and when it no longer can. */
function editorNotes(ctx: CardContext, draft: Draft, stale: boolean): HTMLElement[] {
  const { plan, snapshot } = ctx;
  const note = snapshot.pending_proposal_hash
    ? `Editing rev ${draft.baseRevision}. Saving makes a new revision by you; the waiting proposal moves to your text, with a new hash.`
    : `Editing rev ${draft.baseRevision}. Saving makes a new revision by you; the agent is told what you changed.`;
  const notes = [h("div", "jp-plans-editor-note", icon("pencil"), note)];
  if (stale && plan) {
    notes.push(
      h(
        "div",
        { class: "jp-plans-editor-stale", attrs: { role: "alert" } },
        `The plan changed while you were editing (now rev ${plan.revision}); this edit can no longer be saved. Cancel to see the new plan.`,
      ),
    );
  }
  return notes;
}

/** One phase of the draft: its steps, each a row to edit, and its "Add step". */
function editPhase(ctx: CardContext, draft: Draft, phaseIndex: number, rows: (step: DraftStep) => HTMLElement): HTMLElement {
  const { state } = ctx;
  const phase = draft.phases[phaseIndex];
  const busy = state.inflight !== null;
  const full = stepCount(draft) >= MAX_STEPS;
  const block = h("div", "jp-plans-phase");
  if (phase.title) block.append(phaseHeader(phaseIndex, phase.title, phase.steps.length));
  const list = h("ol", "jp-plans-edit-list", ...phase.steps.map(rows));
  if (phase.steps.length === 0) {
    list.append(h("li", "jp-plans-edit-empty", "No steps: this phase is left out when you save, unless you add one."));
  }
  const add = button(
    {
      class: "jp-plans-button-ghost jp-plans-add-step",
      key: `add:${phaseIndex}`,
      title: full ? `A plan holds at most ${MAX_STEPS} steps` : undefined,
      disabled: busy || full,
      onClick: () => {
        const id = addStep(draft, phaseIndex);
        if (id) state.focusNext = `desc:${id}`;
        ctx.rerender();
      },
    },
    icon("plus"),
    phase.title ? `Add step to ${phase.title}` : "Add step",
  );
  block.append(list, add);
  return block;
}

/** Save (held while the draft is unchanged, stale or breaks a bound) and Cancel. */
function editorActions(ctx: CardContext, draft: Draft, stale: boolean, inputs: HTMLInputElement[]) {
  const { state, actions } = ctx;
  const busy = state.inflight !== null;
  const saving = state.inflight?.kind === "edit";
  const save = button(
    {
      class: "jp-plans-button-primary",
      key: "save",
      onClick: () => {
        if (!actions?.edit || save.disabled) return;
        startInflight(state, "edit", ctx.rerender);
        actions.edit(toEdit(draft));
        ctx.rerender();
      },
    },
    icon("check"),
    saving ? "Saving…" : "Save",
  );
  const status = h("span", { class: "jp-plans-editor-status", attrs: { "aria-live": "polite" } });
  const refresh = () => {
    const found = problems(draft);
    for (const input of inputs) {
      const invalid = found.has(input.getAttribute("data-step-id") ?? "");
      input.setAttribute("aria-invalid", String(invalid));
    }
    const unchanged = isUnchanged(draft);
    save.disabled = busy || stale || found.size > 0 || unchanged;
    const first = found.values().next();
    status.textContent = first.done ? (unchanged ? "No changes yet." : "") : first.value;
    status.classList.toggle("jp-plans-editor-problem", !first.done);
  };
  const cancel = button(
    {
      class: "jp-plans-button-secondary",
      key: "cancel",
      disabled: saving,
      onClick: () => {
        state.draft = null;
        state.focusNext = "edit";
        ctx.rerender();
      },
    },
    "Cancel",
  );
  return { row: h("div", "jp-plans-row jp-plans-editor-actions", save, cancel, status), refresh };
}

export function editor(ctx: CardContext, draft: Draft): HTMLElement {
  const { state, plan } = ctx;
  const stale = plan !== null && plan.revision !== draft.baseRevision;
  const root = h("div", { class: "jp-plans-editor", attrs: { role: "group", "aria-label": "Edit the plan's steps" } });
  root.append(...editorNotes(ctx, draft, stale));
  const inputs: HTMLInputElement[] = [];
  const actions = editorActions(ctx, draft, stale, inputs);
  sizeIdColumn(root, draft.phases.flatMap((phase) => phase.steps.map((step) => step.id)));
  const dependsOn = effectiveDependsOn(draft);
  draft.phases.forEach((_, phaseIndex) => {
    const row = (step: DraftStep) => {
      const busy = state.inflight !== null;
      const made = editRow(ctx, draft, phaseIndex, step, dependsOn.get(step.id) ?? [], actions.refresh, busy);
      inputs.push(...made.querySelectorAll("input"));
      return made;
    };
    root.append(editPhase(ctx, draft, phaseIndex, row));
  });
  root.append(actions.row);
  actions.refresh();
  return root;
}
