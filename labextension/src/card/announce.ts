/**
 * What a screen reader hears as the card changes: one polite live region per card host, kept
 * across renders (the card itself is rebuilt on each), saying the card's state in a sentence
 * each time that sentence changes: a new proposal, an approval, a question, the kernel gone.
 */

import type { CardData, CardFrame } from "../types";
import { h } from "./dom";
import { decidedBy } from "./header";
import type { UiState } from "./state";

/** The card's state in one sentence. */
export function headline(data: CardData, frame: CardFrame): string {
  const { snapshot } = data;
  const short = (hash: string) => hash.slice(0, 12);
  if (frame.notice?.kind === "kernel-gone" || frame.notice?.kind === "superseded") return frame.notice.text;
  if (snapshot.pending_proposal_hash) {
    return `Proposal ${short(snapshot.pending_proposal_hash)} is waiting for your decision.`;
  }
  if (data.question) return `The agent asks: ${data.question}`;
  if (data.review && snapshot.plan && data.review.revision === snapshot.plan.revision) return "The plan is finished.";
  if (snapshot.mode === "plan") return "Plan mode: the agent is researching.";
  if (snapshot.approved_proposal_hash) {
    return `Proposal ${short(snapshot.approved_proposal_hash)} approved${decidedBy(data.approved_by ?? null)}.`;
  }
  return snapshot.plan ? `Plan revision ${snapshot.plan.revision}.` : "No plan yet.";
}

/** Puts the live region after the card in `host` and says the headline when it changed. */
export function announce(host: HTMLElement, state: UiState, data: CardData, frame: CardFrame): void {
  if (!state.live) {
    state.live = h("div", {
      class: "jp-plans-sr-only jp-plans-live",
      attrs: { role: "status", "aria-live": "polite", "aria-atomic": "true" },
    });
  }
  if (state.live.parentElement !== host) host.append(state.live);
  const said = headline(data, frame);
  // The first drawing is read with the page; only what changes afterwards is announced.
  if (state.announced !== null && said !== state.announced) state.live.textContent = said;
  state.announced = said;
}
