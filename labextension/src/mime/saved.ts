/** The card as saved in a notebook's outputs: its MIME type, its shape check, and its drawing. */

import { renderCard } from "../card";
import type { CardData, CardFrame, CardNotice } from "../types";

export const CARD_MIME_TYPE = "application/vnd.jupyter-plans.card+json";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The shape the card reads; anything else in a saved notebook is shown as unreadable. */
export function isCardData(value: unknown): value is CardData {
  if (!isObject(value) || !isObject(value.snapshot)) return false;
  const { snapshot, changes, question, notes, review } = value;
  if (typeof snapshot.mode !== "string" || !Array.isArray(snapshot.decisions)) return false;
  if (typeof snapshot.cursor !== "number" || typeof snapshot.session_id !== "string") return false;
  if (question !== null && question !== undefined && typeof question !== "string") return false;
  if (notes !== null && notes !== undefined && typeof notes !== "string") return false;
  if (review !== null && review !== undefined) {
    if (!isObject(review) || typeof review.revision !== "number" || !Array.isArray(review.review)) return false;
  }
  const plan = snapshot.plan;
  if (plan !== null && plan !== undefined) {
    if (!isObject(plan) || typeof plan.revision !== "number") return false;
    for (const list of ["steps", "phases", "findings", "objectives"]) {
      if (!Array.isArray(plan[list])) return false;
    }
  }
  if (changes !== null && changes !== undefined) {
    if (!isObject(changes)) return false;
    for (const list of ["added", "removed", "reworded"]) {
      if (!Array.isArray(changes[list])) return false;
    }
  }
  return true;
}

/** The line above a saved card: which revision of the plan it shows (no time, no path). */
export function savedNotice(data: CardData): CardNotice {
  const plan = data.snapshot.plan;
  return {
    kind: "saved",
    text: plan
      ? `Saved output: the plan as of revision ${plan.revision} when its cell ran.`
      : "Saved output: there was no plan yet when its cell ran.",
  };
}

/** Saved data as the card reads it: fields absent from older notebooks are null. */
export function savedCardData(data: CardData): CardData {
  return {
    snapshot: data.snapshot,
    notebook: data.notebook ?? null,
    changes: data.changes ?? null,
    question: data.question ?? null,
    notes: data.notes ?? null,
    review: data.review ?? null,
    approved_by: data.approved_by ?? null,
    bridged: data.bridged ?? null,
  };
}

/**
 * Draws saved card data into `host` (by default under the line that says which revision it
 * shows), or one line saying why it cannot.
 */
export function renderSavedCard(host: HTMLElement, data: unknown, frame?: CardFrame): void {
  if (isCardData(data)) {
    try {
      renderCard(host, savedCardData(data), undefined, null, frame ?? { notice: savedNotice(data) });
      return;
    } catch (error) {
      console.error("jupyter-plans: the saved card could not be drawn", error);
    }
  }
  const line = document.createElement("div");
  line.className = "jp-plans-unreadable";
  line.textContent = "This output holds a plan card whose saved data could not be read.";
  host.replaceChildren(line);
}
