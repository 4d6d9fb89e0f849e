/**
 * The renderer of the card's saved MIME bundle: a saved notebook shows the plan as it was
 * when the cell ran, without buttons, from `application/vnd.jupyter-plans.card+json`.
 */

import type { IRenderMime } from "@jupyterlab/rendermime-interfaces";
import { Widget } from "@lumino/widgets";
import { CARD_MIME_TYPE, renderSavedCard } from "./saved";

export { CARD_MIME_TYPE, isCardData, renderSavedCard } from "./saved";

/**
 * Between the live widget (application/vnd.jupyter.widget-view+json, rank -10, not safe)
 * and the HTML fallback beside it (text/html, 50): a trusted output with a widget manager
 * renders the live widget, any other output renders this card rather than the HTML.
 */
export const CARD_RANK = 20;

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
