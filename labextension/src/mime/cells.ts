/**
 * Where a card's link to a cell leads in JupyterLab and Notebook 7: the card asks with a
 * bubbling GO_TO_CELL_EVENT (the anywidget bundle has no JupyterLab of its own), and the
 * surface around it answers: a notebook for the cards in its outputs, the Plan panel for the
 * notebook it shows.
 */

import { NotebookActions } from "@jupyterlab/notebook";
import type { NotebookPanel } from "@jupyterlab/notebook";
import { GO_TO_CELL_EVENT } from "../types";
import type { GoToCellDetail, GoToCellResult } from "../types";

/**
 * Makes the cell whose nbformat id is `cellId` the notebook's active and only selected cell,
 * in command mode, scrolls to it and moves focus there; "missing" when no cell has that id.
 * `reveal` brings the notebook to the front first, for a surface outside it.
 */
export function goToCell(
  panel: NotebookPanel,
  cellId: string,
  reveal?: (panel: NotebookPanel) => void,
): GoToCellResult {
  const notebook = panel.content;
  const index = notebook.widgets.findIndex((cell) => cell.model.id === cellId);
  if (index < 0) return "missing";
  reveal?.(panel);
  // Command mode first: an editor left focused would take the keys meant for the cell.
  notebook.mode = "command";
  notebook.deselectAll();
  notebook.activeCellIndex = index;
  // Focus leaves the card at once, so a redraw of the card does not take it back (and with it
  // the active cell); once scrolled, it goes to the cell again, drawn by then.
  void NotebookActions.focusActiveCell(notebook, { waitUntilReady: false, preventScroll: true });
  notebook
    .scrollToItem(index, "smart")
    .catch(() => undefined) // a cell not yet measured: it is active all the same
    .then(() => NotebookActions.focusActiveCell(notebook, { waitUntilReady: true, preventScroll: true }))
    .catch((error) => console.warn("jupyter-plans: could not focus the cell a card's link leads to", error));
  return "shown";
}

/**
 * Answers the links to cells of the cards inside `node`, in the notebook `notebookOf` gives
 * (null: none is open); returns a function that stops.
 */
export function answerCellLinks(
  node: HTMLElement,
  notebookOf: () => NotebookPanel | null,
  reveal?: (panel: NotebookPanel) => void,
): () => void {
  const listener = (event: Event) => {
    const detail = (event as CustomEvent<GoToCellDetail>).detail;
    if (!detail || detail.result !== null || typeof detail.cellId !== "string") return;
    const panel = notebookOf();
    if (!panel || panel.isDisposed) {
      detail.result = "closed";
      return;
    }
    detail.result = goToCell(panel, detail.cellId, reveal);
  };
  node.addEventListener(GO_TO_CELL_EVENT, listener);
  return () => node.removeEventListener(GO_TO_CELL_EVENT, listener);
}
