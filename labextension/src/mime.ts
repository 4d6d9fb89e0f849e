/**
 * The renderer of the card's saved MIME bundle: a saved notebook shows the plan as it was
 * when the cell ran, without buttons, from `application/vnd.jupyter-plans.card+json`.
 */

import type { IRenderMime } from "@jupyterlab/rendermime-interfaces";
import { Widget } from "@lumino/widgets";
import { renderCard } from "./card";
import type { CardData } from "./types";

export const CARD_MIME_TYPE = "application/vnd.jupyter-plans.card+json";

/**
 * Between the live widget (application/vnd.jupyter.widget-view+json, rank -10, not safe)
 * and the HTML fallback beside it (text/html, 50): a trusted output with a widget manager
 * renders the live widget, any other output renders this card rather than the HTML.
 */
export const CARD_RANK = 20;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The shape the card reads; anything else in a saved notebook is shown as unreadable. */
export function isCardData(value: unknown): value is CardData {
  if (!isObject(value) || !isObject(value.snapshot)) return false;
  const { snapshot, changes, question, review } = value;
  if (typeof snapshot.mode !== "string" || !Array.isArray(snapshot.decisions)) return false;
  if (question !== null && question !== undefined && typeof question !== "string") return false;
  if (review !== null && review !== undefined) {
    if (!isObject(review) || typeof review.revision !== "number" || !Array.isArray(review.review)) return false;
  }
  const plan = snapshot.plan;
  if (plan !== null && plan !== undefined) {
    if (!isObject(plan)) return false;
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

/** Draws saved card data into `host`, or one line saying why it cannot. */
export function renderSavedCard(host: HTMLElement, data: unknown): void {
  if (isCardData(data)) {
    try {
      renderCard(host, {
        snapshot: data.snapshot,
        notebook: data.notebook ?? null,
        changes: data.changes ?? null,
        question: data.question ?? null,
        review: data.review ?? null,
      });
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

/** A saved card: no actions, so no buttons that would act on the plan. */
export class SavedCardRenderer extends Widget implements IRenderMime.IRenderer {
  constructor(options: IRenderMime.IRendererOptions) {
    super();
    this.mimeType = options.mimeType;
    this.addClass("jp-plans-output");
  }

  readonly mimeType: string;

  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    renderSavedCard(this.node, model.data[this.mimeType]);
    return Promise.resolve();
  }
}

export const rendererFactory: IRenderMime.IRendererFactory = {
  // Safe: the card puts every model-authored string into the page as text.
  safe: true,
  mimeTypes: [CARD_MIME_TYPE],
  defaultRank: CARD_RANK,
  createRenderer: (options) => new SavedCardRenderer(options),
};

const extension: IRenderMime.IExtension = {
  id: "jupyter-plans:saved-card",
  description: "Shows the plan card saved in a notebook's outputs.",
  rendererFactory,
  rank: CARD_RANK,
  dataType: "json",
};

export default extension;
