/**
 * The plan card: one renderer for the widget, the MIME renderer and the side panel. It
 * rebuilds the card inside `host` from the data on every call, keeping the person's own
 * state (open sections, a half-typed note, an unsaved edit, focus) across calls.
 */

import type { CardActions, CardData, CardFrame } from "../types";
import type { CardContext } from "./context";
import { otherThreads } from "./comments";
import type { Child } from "./dom";
import { KEY_ATTR, STANDING_ATTR, STANDING_KEY, h } from "./dom";
import { editor } from "./editor";
import { announce } from "./announce";
import { MODEL_ID_ATTR, SUPERSEDED_BY_ATTR, freeze, noticeBar } from "./frame";
import { guardLines } from "./guards";
import { decisionBanner } from "./decision";
import { activityBanner, emptyState, errorBar, explanation, header, notesLine } from "./header";
import { questionBanner } from "./question";
import { currentReview, finishedBanner } from "./review";
import { collapsible, decisionList, footer, progress, textList } from "./sections";
import { stepList } from "./steps";
import { dropStaleForms, settleInflight, stateFor } from "./state";

export type { CardActions, CardData, CardFrame, CardNotice, CardShownDetail } from "../types";
export { CARD_SHOWN_EVENT } from "../types";
export { KERNEL_GONE_NOTICE, MODEL_ID_ATTR, scrollToCard, supersededNotice } from "./frame";

interface FocusMemory {
  key: string;
  selectionStart: number | null;
  selectionEnd: number | null;
}

function rememberFocus(host: HTMLElement): FocusMemory | null {
  const active = document.activeElement;
  if (!(active instanceof HTMLElement) || !host.contains(active)) return null;
  const key = active.getAttribute(KEY_ATTR);
  if (key === null) return null;
  const field = active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement ? active : null;
  return { key, selectionStart: field?.selectionStart ?? null, selectionEnd: field?.selectionEnd ?? null };
}

function restoreFocus(host: HTMLElement, memory: FocusMemory | null, preferred: string | null): void {
  const wanted = preferred ?? memory?.key;
  if (!wanted) return;
  if (wanted === STANDING_KEY) {
    afterDecision(host)?.focus({ preventScroll: true });
    return;
  }
  // Compared as attribute values, not put into a selector: keys hold model-authored ids.
  const target = Array.from(host.querySelectorAll<HTMLElement>(`[${KEY_ATTR}]`)).find(
    (element) => element.getAttribute(KEY_ATTR) === wanted,
  );
  if (!target || (target as HTMLButtonElement).disabled) {
    // Keep keyboard users inside the card when their button went or was disabled (a decision
    // sent): on what says where things stand, visible and labelled, else the card itself.
    if (memory) afterDecision(host)?.focus({ preventScroll: true });
    return;
  }
  target.focus({ preventScroll: true });
  if (memory && memory.key === wanted && memory.selectionStart !== null) {
    if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement) {
      target.setSelectionRange(memory.selectionStart, memory.selectionEnd ?? memory.selectionStart);
    }
  }
}

/** Where focus goes once the control that had it is gone: the line that says where things
 * stand now (the decision banner, what the agent does, the approval), else the card. */
function afterDecision(host: HTMLElement): HTMLElement | null {
  for (const kind of ["decided", "activity", "mode"]) {
    const found = host.querySelector<HTMLElement>(`[${STANDING_ATTR}="${kind}"]`);
    if (found) return found;
  }
  return host.querySelector<HTMLElement>(".jp-plans-card");
}

function cardRoot(ctx: CardContext): HTMLElement {
  const { frame } = ctx;
  return h("div", {
    class: `jp-plans-card${ctx.snapshot.mode === "plan" ? " jp-plans-mode-plan" : ""}`,
    // Keyed, so focus on the card itself (where a decision leaves it) stays on the new one.
    key: "card",
    attrs: {
      role: "region",
      "aria-label": "Plan",
      tabindex: -1,
      [MODEL_ID_ATTR]: frame.modelId,
      [SUPERSEDED_BY_ATTR]: frame.supersededBy,
    },
  });
}

/**
 * What waits on the person, first after the header wherever the card is shown (a projector, a
 * narrow panel): a proposal's decision, the agent's question.
 */
function waitingOnThePerson(ctx: CardContext): Child[] {
  const hash = ctx.snapshot.pending_proposal_hash;
  const question = ctx.data.question ?? null;
  return [hash ? decisionBanner(ctx, hash) : null, question ? questionBanner(ctx, question) : null];
}

/** Where the plan stands: what it is for, the final review, what the agent does, the notes. */
function standing(ctx: CardContext): Child[] {
  const { snapshot, plan } = ctx;
  const review = currentReview(ctx);
  // While its question is open the agent is waiting for the person, not researching.
  const idle = snapshot.mode === "plan" && !snapshot.pending_proposal_hash && !ctx.data.question;
  const notes = ctx.data.notes;
  return [
    plan?.explanation ? explanation(plan.explanation) : null,
    review ? finishedBanner(ctx, review) : null,
    idle ? activityBanner(ctx) : null,
    notes ? notesLine(notes) : null,
  ];
}

/** The plan itself: progress, findings, objectives, the steps (or the editor), the threads. */
function thePlan(ctx: CardContext): Child[] {
  const { plan, state, changes, snapshot } = ctx;
  if (!plan) return [emptyState(snapshot.mode === "plan")];
  const parts: Child[] = [plan.steps.length ? progress(plan) : null];
  if (plan.findings.length) {
    parts.push(collapsible(ctx, "findings", "Findings", plan.findings.length, textList(plan.findings)));
  }
  if (plan.objectives.length) {
    parts.push(collapsible(ctx, "objectives", "Objectives", plan.objectives.length, textList(plan.objectives)));
  }
  if (state.draft && ctx.actions?.edit) parts.push(editor(ctx, state.draft));
  else if (plan.steps.length || changes?.removed.length) parts.push(stepList(ctx, plan, changes));
  else parts.push(h("div", "jp-plans-empty", "The plan has no steps."));
  parts.push(state.draft ? null : otherThreads(ctx));
  return parts;
}

function build(ctx: CardContext, error: string | null): HTMLElement {
  const { snapshot, plan, frame } = ctx;
  const card = cardRoot(ctx);
  if (frame.notice) card.append(noticeBar(frame.notice));
  if (error) card.append(errorBar(error));
  card.append(header(ctx));
  const decisions = snapshot.decisions.length
    ? collapsible(ctx, "decisions", "Decisions", snapshot.decisions.length, decisionList(snapshot.decisions))
    : null;
  card.append(
    h("div", "jp-plans-body", ...waitingOnThePerson(ctx), guardLines(ctx), ...standing(ctx), ...thePlan(ctx), decisions),
  );
  if (plan) card.append(footer());
  if (frame.frozen) freeze(card);
  return card;
}

/**
 * (Re)builds the card inside `host`. Without `actions` (a saved notebook) the card shows no
 * buttons that act on the plan. `error` is one line shown at the top of the card; `frame`
 * is what the surface says around it (a notice above the header, a frozen card).
 */
export function renderCard(
  host: HTMLElement,
  data: CardData,
  actions?: CardActions,
  error?: string | null,
  frame: CardFrame = {},
): void {
  const state = stateFor(host);
  state.data = data;
  state.actions = actions;
  state.error = error ?? null;
  state.frame = frame;
  settleInflight(state, data, state.error);
  state.selfRender = false;
  dropStaleForms(state, data);
  if (!data.snapshot.plan || !actions?.edit) state.draft = null;

  const ctx: CardContext = {
    data,
    snapshot: data.snapshot,
    plan: data.snapshot.plan,
    changes: data.changes,
    actions,
    frame,
    state,
    rerender: () => {
      if (!state.data) return;
      state.selfRender = true;
      renderCard(host, state.data, state.actions, state.error, state.frame);
    },
  };
  const focus = rememberFocus(host);
  const preferred = state.focusNext;
  state.focusNext = null;
  host.classList.add("jp-plans-host");
  host.replaceChildren(build(ctx, state.error));
  announce(state, data, frame);
  restoreFocus(host, focus, preferred);
}
