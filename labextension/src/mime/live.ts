/**
 * The card's output in a JupyterLab notebook: the saved card, replaced by the live widget as
 * soon as the notebook's widget manager has drawn it. A trusted notebook reopened without
 * its kernel's widgets thus shows the plan as it was, not "Error displaying widget".
 */

import type { ISessionContext } from "@jupyterlab/apputils";
import type { IRenderMimeRegistry } from "@jupyterlab/rendermime";
import type { IRenderMime } from "@jupyterlab/rendermime-interfaces";
import { Panel, Widget } from "@lumino/widgets";
import { CARD_MIME_TYPE, renderSavedCard } from "./saved";

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
  private readonly saved = new Widget();
  private savedData: unknown = null;
  private live: IRenderMime.IRenderer | null = null;
  /** The widget-view data the live renderer draws, as JSON. */
  private liveView: string | null = null;
  private observer: MutationObserver | null = null;

  constructor(
    options: IRenderMime.IRendererOptions,
    private readonly outputs: NotebookOutputs,
  ) {
    super();
    this.mimeType = options.mimeType;
    this.addClass("jp-plans-output");
    this.addWidget(this.saved);
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this.savedData = model.data[this.mimeType];
    // The widget view is not safe: only a trusted output may run the widget's code.
    const view = model.trusted ? model.data[WIDGET_VIEW_MIME_TYPE] : undefined;
    const key = view === undefined ? null : JSON.stringify(view);
    if (key !== this.liveView) {
      this.dropLive();
      this.liveView = key;
      if (key !== null) void this.startLive(model, key);
    }
    this.sync();
  }

  override dispose(): void {
    if (this.isDisposed) return;
    this.dropLive();
    super.dispose();
  }

  private async startLive(model: IRenderMime.IMimeModel, key: string): Promise<void> {
    if (!(await widgetManagerReady(this.outputs))) return;
    if (this.isDisposed || this.liveView !== key || this.live) return;
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
    this.sync();
  }

  private dropLive(): void {
    this.observer?.disconnect();
    this.observer = null;
    this.live?.dispose();
    this.live = null;
  }

  /** Exactly one card in the page per output: the live one when drawn, else the saved one. */
  private sync(): void {
    if (this.isDisposed) return;
    const live = this.live;
    const showLive = live !== null && !live.isDisposed && live.node.firstElementChild !== null;
    if (showLive) {
      live.show();
      this.saved.hide();
      this.saved.node.replaceChildren();
    } else {
      live?.hide();
      renderSavedCard(this.saved.node, this.savedData);
      this.saved.show();
    }
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
