/**
 * What a screen reader hears as the cards change: one polite live region for the page (outside
 * every card and panel, so it never doubles what they show), saying a card's state in a sentence
 * each time that sentence changes: a new proposal, an approval, a question, the kernel gone. The
 * sentence is cleared a moment later, and the same sentence from two surfaces (the live card
 * and the Plan panel) is said once.
 */

import type { CardData, CardFrame } from "../types";
import { decidedBy } from "./header";
import type { UiState } from "./state";

const REGION_ID = "jp-plans-announcer";
const SAID_FOR_MS = 4000;
let cleared: ReturnType<typeof setTimeout> | null = null;

/** The card's state in one sentence. */
export function headline(data: CardData, frame: CardFrame): string {
  const { snapshot } = data;
  const short = (hash: string) => hash.slice(0, 12);
  if (frame.notice?.kind === "kernel-gone" || frame.notice?.kind === "superseded") return frame.notice.text;
  if (snapshot.pending_proposal_hash) {
    return `New proposal ${short(snapshot.pending_proposal_hash)}: it needs your decision.`;
  }
  if (data.question) return `A question from the agent: ${data.question}`;
  if (data.review && snapshot.plan && data.review.revision === snapshot.plan.revision) return "The plan is finished.";
  const silent = data.guards?.silent ?? [];
  if (snapshot.mode === "plan" && silent.length) {
    const agents = silent.map((guard) => guard.agent).join(" and ");
    return `Plan mode is on, but the guard of ${agents} has not been heard from since it began.`;
  }
  if (snapshot.mode === "plan") {
    const name = data.agent?.agent ?? "The agent";
    if (data.activity === "chat") return `Plan mode is on; ${name} waits for your next message in the chat.`;
    if (data.activity === "none") return "Plan mode is on and waits for an agent.";
    return "Plan mode is on; a proposal will follow.";
  }
  if (snapshot.approved_proposal_hash) {
    return `Proposal ${short(snapshot.approved_proposal_hash)} approved${decidedBy(data.approved_by ?? null)}.`;
  }
  return snapshot.plan ? `Plan revision ${snapshot.plan.revision}.` : "No plan yet.";
}

function region(): HTMLElement {
  let found = document.getElementById(REGION_ID);
  if (!found) {
    found = document.createElement("div");
    found.id = REGION_ID;
    found.className = "jp-plans-sr-only";
    found.setAttribute("role", "status");
    found.setAttribute("aria-live", "polite");
    found.setAttribute("aria-atomic", "true");
    document.body.append(found);
  }
  return found;
}

/** Says the card's headline when it changed since this host's last drawing. */
export function announce(state: UiState, data: CardData, frame: CardFrame): void {
  const said = headline(data, frame);
  // The first drawing is read with the page; only what changes afterwards is announced.
  if (state.announced !== null && said !== state.announced) say(said);
  state.announced = said;
}

/** Says one sentence in the page's live region, cleared a moment later. */
export function say(sentence: string): void {
  const live = region();
  if (live.textContent !== sentence) live.textContent = sentence;
  if (cleared) clearTimeout(cleared);
  cleared = setTimeout(() => {
    live.textContent = "";
  }, SAID_FOR_MS);
}
