/**
 * The card's output in a JupyterLab notebook: the saved card, replaced by the live widget as
 * soon as the notebook's widget manager has drawn it (and only when the kernel holds its
 * model). A trusted notebook reopened without its kernel's widgets thus shows the plan as it
 * was, not "Error displaying widget". When the kernel of a live card goes, the output carries
 * on through the server extension (server-card.ts) from what the card last showed.
 */

import type { ISessionContext } from "@jupyterlab/apputils";
import type { IRenderMimeRegistry } from "@jupyterlab/rendermime";
import type { IRenderMime } from "@jupyterlab/rendermime-interfaces";
import { Panel, Widget } from "@lumino/widgets";
import type { PlansApi } from "../api";
import { CARD_SHOWN_EVENT, MODEL_ID_ATTR } from "../card";
import type { CardShownDetail } from "../types";
import { SavedOrCurrent } from "./current";
import { kernelHoldsModel, onKernelGone } from "./kernel";
import { CARD_MIME_TYPE, isCardData } from "./saved";
import { ServerCard, supersedeServerCards } from "./server-card";

export const WIDGET_VIEW_MIME_TYPE = "application/vnd.jupyter.widget-view+json";

/**
 * In a notebook's own registry only: ahead of the widget view (-10), which this renderer
 * then draws itself when the output is trusted and the kernel knows the widget.
 */
export const LIVE_OR_SAVED_RANK = -20;

/** How long after the kernel is ready the widget manager may take to take over a notebook. */
const MANAGER_WAIT_MS = 10000;

/** What a notebook offers its card outputs. */
export interface NotebookOutputs {
  /** The notebook's registry, where the widget manager registers its bound renderer. */
  registry: IRenderMimeRegistry;
  session: ISessionContext;
  /** The application's widget-view factory: bound to no notebook's manager. */
  unboundFactory(): IRenderMime.IRendererFactory | undefined;
  /** The notebook's path relative to the server root (it follows renames). */
  path(): string;
  api: PlansApi;
}

const managerReady = new WeakMap<IRenderMimeRegistry, Promise<boolean>>();

async function waitForManager(outputs: NotebookOutputs): Promise<boolean> {
  await outputs.session.ready;
  if (!outputs.session.session?.kernel) return false;
  const deadline = Date.now() + MANAGER_WAIT_MS;
  while (Date.now() < deadline) {
    const factory = outputs.registry.getFactory(WIDGET_VIEW_MIME_TYPE);
    if (factory && factory !== outputs.unboundFactory()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

/**
 * Resolves true once the notebook's widget manager has registered its own widget-view
 * renderer (ipywidgets does so after the kernel is ready); false when there is no kernel or
 * no widget manager, and the saved card stays. Only a yes is kept: outputs drawn later (a
 * kernel picked afterwards) ask again.
 */
function widgetManagerReady(outputs: NotebookOutputs): Promise<boolean> {
  let ready = managerReady.get(outputs.registry);
  if (!ready) {
    ready = waitForManager(outputs).then((found) => {
      if (!found) managerReady.delete(outputs.registry);
      return found;
    });
    managerReady.set(outputs.registry, ready);
  }
  return ready;
}

export class LiveOrSavedCard extends Panel implements IRenderMime.IRenderer {
  readonly mimeType: string;
  /** Where the saved card, the plan as it is now, or a card whose kernel is gone is drawn. */
  private readonly saved = new Widget();
  private readonly savedView: SavedOrCurrent;
  private savedData: unknown = null;
  private live: IRenderMime.IRenderer | null = null;
  /** The widget-view data the live renderer draws, as JSON. */
  private liveView: string | null = null;
  private modelId: string | null = null;
  private observer: MutationObserver | null = null;
  /** What the live card showed last, as it told the page. */
  private shown: CardShownDetail | null = null;
  private stopWatchingKernel: (() => void) | null = null;
  /** The card that carries on after its kernel went. */
  private serverCard: ServerCard | null = null;
  /** True while the live card may still come: the saved card then asks the server nothing. */
  private livePending = false;

  constructor(
    options: IRenderMime.IRendererOptions,
    private readonly outputs: NotebookOutputs,
  ) {
    super();
    this.mimeType = options.mimeType;
    this.addClass("jp-plans-output");
    this.addWidget(this.saved);
    this.savedView = new SavedOrCurrent(this.saved.node, outputs.api, outputs.path);
    this.node.addEventListener(CARD_SHOWN_EVENT, this.onShown);
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this.savedData = model.data[this.mimeType];
    // The widget view is not safe: only a trusted output may run the widget's code.
    const view = model.trusted ? model.data[WIDGET_VIEW_MIME_TYPE] : undefined;
    const key = view === undefined ? null : JSON.stringify(view);
    if (key !== this.liveView) {
      this.dropLive();
      this.dropServerCard();
      this.shown = null;
      this.liveView = key;
      const modelId = (view as { model_id?: unknown } | undefined)?.model_id;
      this.modelId = typeof modelId === "string" && modelId ? modelId : null;
      if (this.modelId) this.node.setAttribute(MODEL_ID_ATTR, this.modelId);
      else this.node.removeAttribute(MODEL_ID_ATTR);
      this.livePending = key !== null && this.modelId !== null;
      if (key !== null && this.livePending) void this.startLive(model, key, performance.now());
    }
    this.sync();
  }

  override dispose(): void {
    if (this.isDisposed) return;
    this.node.removeEventListener(CARD_SHOWN_EVENT, this.onShown);
    this.dropLive();
    this.dropServerCard();
    this.savedView.dispose();
    super.dispose();
  }

  private readonly onShown = (event: Event) => {
    const detail = (event as CustomEvent<CardShownDetail>).detail;
    if (!detail || !isCardData(detail.data)) return;
    this.shown = detail;
    // One live card per session: this one takes over from any that carried on without a kernel.
    if (!detail.supersededBy && this.modelId) {
      supersedeServerCards(this.outputs.path(), detail.data.snapshot.session_id, this.modelId);
    }
  };

  private async startLive(model: IRenderMime.IMimeModel, key: string, since: number): Promise<void> {
    try {
      await this.drawLive(model, key, since);
    } finally {
      if (this.liveView === key) {
        this.livePending = false;
        this.sync();
      }
    }
  }

  private async drawLive(model: IRenderMime.IMimeModel, key: string, since: number): Promise<void> {
    if (!(await widgetManagerReady(this.outputs))) return;
    if (this.isDisposed || this.liveView !== key || this.live) return;
    // A model the kernel does not hold (a reopened notebook, a new kernel) would only say
    // "widget model not found": the saved card stays.
    if (!(await kernelHoldsModel(this.outputs.session, this.modelId ?? "", since))) return;
    if (this.isDisposed || this.liveView !== key || this.live || this.serverCard) return;
    const live = this.outputs.registry.createRenderer(WIDGET_VIEW_MIME_TYPE);
    this.live = live;
    live.hide();
    this.addWidget(live);
    // The widget renderer draws its view as a child element, or writes one line of text
    // ("Loading widget...", "Error displaying widget..."), and redraws after a restore.
    this.observer = new MutationObserver(() => this.sync());
    this.observer.observe(live.node, { childList: true });
    try {
      await live.renderModel(model);
    } catch (error) {
      console.warn("jupyter-plans: the live card could not be drawn; the saved one stays", error);
    }
  }

  private dropLive(): void {
    this.stopWatchingKernel?.();
    this.stopWatchingKernel = null;
    this.observer?.disconnect();
    this.observer = null;
    this.live?.dispose();
    this.live = null;
  }

  private dropServerCard(): void {
    this.serverCard?.dispose();
    this.serverCard = null;
  }

  /** The kernel that drew the live card is gone: the card carries on without it. */
  private kernelGone(): void {
    this.stopWatchingKernel = null;
    const shown = this.shown?.data ?? (isCardData(this.savedData) ? this.savedData : null);
    this.dropLive();
    if (shown && !this.isDisposed) {
      this.savedView.hide();
      this.serverCard = new ServerCard(this.saved.node, {
        api: this.outputs.api,
        path: this.outputs.path,
        start: shown,
        supersededBy: this.shown?.supersededBy ?? null,
        modelId: this.modelId,
      });
    }
    this.sync();
  }

  /** Exactly one card in the page per output: the live one when drawn, else the saved one. */
  private sync(): void {
    if (this.isDisposed) return;
    const live = this.live;
    const showLive = live !== null && !live.isDisposed && live.node.firstElementChild !== null;
    if (showLive) {
      live.show();
      this.saved.hide();
      this.savedView.hide();
      this.stopWatchingKernel ??= onKernelGone(this.outputs.session, () => this.kernelGone());
      return;
    }
    live?.hide();
    // A card that carries on without its kernel draws itself into the same place.
    if (!this.serverCard) this.savedView.show(this.savedData, !this.livePending);
    this.saved.show();
  }
}

export function liveOrSavedFactory(outputs: NotebookOutputs): IRenderMime.IRendererFactory {
  return {
    // Safe: untrusted outputs get only the saved card, whose text goes in as text.
    safe: true,
    mimeTypes: [CARD_MIME_TYPE],
    defaultRank: LIVE_OR_SAVED_RANK,
    createRenderer: (options) => new LiveOrSavedCard(options, outputs),
  };
}
