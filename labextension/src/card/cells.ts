/**
 * The cells that did each step (DESIGN section 13): under a step, its cells as `[12] [13]` with
 * a failed run marked; a completed step whose cell ran other code since, marked "changed after
 * completion"; and `cell:<id>` in evidence, shown as the same link. Following a link asks the
 * page (GO_TO_CELL_EVENT) to select the cell and scroll to it in the card's notebook.
 */

import type { CellRun, GoToCellDetail, GoToCellResult, Snapshot, Step } from "../types";
import { GO_TO_CELL_EVENT } from "../types";
import { say } from "./announce";
import type { CardContext } from "./context";
import type { Child } from "./dom";
import { button, codeText, h } from "./dom";
import { ALWAYS_ATTR } from "./frame";
import { icon } from "./icons";

/** `cell:` and an nbformat cell id (letters, digits, `-` and `_`, at most 64), not inside a word. */
const CITED_CELL = /(?<![\w-])cell:([A-Za-z0-9_-]{1,64})/g;
const WHOLE_CITE = /^cell:([A-Za-z0-9_-]{1,64})$/;
/** A cell the card knows no run of is named by this many characters of its id. */
const SHORT_ID_CHARS = 8;

const NOTES: Record<Exclude<GoToCellResult, "shown"> | "nowhere", string> = {
  missing: "That cell is no longer in this notebook.",
  closed: "Open the notebook to go to its cells.",
  nowhere: "Going to a cell works from the notebook itself, in JupyterLab and Notebook 7.",
};

function isRun(value: unknown): value is CellRun {
  return typeof value === "object" && value !== null && typeof (value as CellRun).cell_id === "string";
}

/** The latest run of each cell that did the step; none on a card saved before cells were linked. */
export function runsOf(snapshot: Snapshot, stepId: string): CellRun[] {
  const all = snapshot.cells;
  if (!all || typeof all !== "object" || !Object.prototype.hasOwnProperty.call(all, stepId)) return [];
  const runs = all[stepId];
  return Array.isArray(runs) ? runs.filter(isRun) : [];
}

/** The cells of a completed step that ran again with other code after it was completed. */
export function changedRuns(step: Step, runs: CellRun[]): CellRun[] {
  return step.status === "completed" ? runs.filter((run) => run.changed === true) : [];
}

/** The run a cited cell is named by: the step's own, else the latest of any step's. */
function knownRun(snapshot: Snapshot, cellId: string, runs: CellRun[]): CellRun | undefined {
  const own = runs.find((run) => run.cell_id === cellId);
  if (own) return own;
  const all = snapshot.cells && typeof snapshot.cells === "object" ? Object.values(snapshot.cells) : [];
  const later = (run: CellRun, than: CellRun) => (run.execution_count ?? -1) > (than.execution_count ?? -1);
  let best: CellRun | undefined;
  for (const list of all) {
    for (const run of Array.isArray(list) ? list.filter(isRun) : []) {
      if (run.cell_id === cellId && (best === undefined || later(run, best))) best = run;
    }
  }
  return best;
}

function count(run: CellRun): string {
  return typeof run.execution_count === "number" ? String(run.execution_count) : "-";
}

function shortId(cellId: string): string {
  return cellId.length > SHORT_ID_CHARS ? `${cellId.slice(0, SHORT_ID_CHARS)}…` : cellId;
}

interface LinkOptions {
  /** Names the link across re-renders, so focus comes back to it. */
  key: string;
  /** Where a note about this link shows: its step's id, or `review:<n>`. */
  where: string;
  cellId: string;
  run?: CellRun;
  changed?: boolean;
  /** Cited in text: "cell [12]" rather than "[12]". */
  cited?: boolean;
}

/** One link to a cell: a real button, named for screen readers with what the marks show. */
function cellLink(ctx: CardContext, options: LinkOptions): HTMLButtonElement {
  const { cellId, run } = options;
  const gone = ctx.state.goneCells.has(cellId);
  const failed = run !== undefined && run.ok === false;
  const numbered = run !== undefined && typeof run.execution_count === "number";
  const named = numbered ? `cell ${run.execution_count}` : `cell ${shortId(cellId)}`;
  const label = [
    `Go to ${named}`,
    failed ? "failed" : null,
    options.changed ? "changed after completion" : null,
    gone ? "no longer in this notebook" : null,
  ]
    .filter(Boolean)
    .join(", ");
  const words: Child[] = run ? [options.cited ? "cell " : null, `[${count(run)}]`] : [`cell ${shortId(cellId)}`];
  const classes = ["jp-plans-cell-link"];
  if (failed) classes.push("jp-plans-cell-failed");
  if (options.changed) classes.push("jp-plans-cell-changed");
  if (gone) classes.push("jp-plans-cell-gone");
  const link: HTMLButtonElement = button(
    {
      class: classes.join(" "),
      key: options.key,
      label,
      title: gone ? NOTES.missing : `${label} (cell id ${cellId})`,
      // Going to a cell does not act on the plan: it works on frozen and saved cards too.
      attrs: { "data-cell-id": cellId, [ALWAYS_ATTR]: true },
      onClick: () => follow(ctx, link, options),
    },
    ...words,
    failed ? icon("failed") : null,
    options.changed ? icon("alert") : null,
  );
  return link;
}

/** Asks the page to go to the cell; says why when it could not. */
function follow(ctx: CardContext, link: HTMLElement, options: LinkOptions): void {
  const detail: GoToCellDetail = { cellId: options.cellId, result: null };
  link.dispatchEvent(new CustomEvent<GoToCellDetail>(GO_TO_CELL_EVENT, { bubbles: true, composed: true, detail }));
  const { state } = ctx;
  const result = detail.result;
  if (result === "shown") {
    const wasGone = state.goneCells.delete(options.cellId);
    const noted = state.cellNote !== null;
    state.cellNote = null;
    if (!wasGone && !noted) return;
    // Focus is on its way to the cell: the redraw must not put it back on the link (in a
    // notebook, focus in the card's output makes the card's own cell the active one again).
    if (link.contains(document.activeElement)) link.blur();
    ctx.rerender();
    return;
  }
  if (result === "missing") state.goneCells.add(options.cellId);
  else state.goneCells.delete(options.cellId);
  const text = NOTES[result ?? "nowhere"];
  state.cellNote = { where: options.where, cellId: options.cellId, text };
  state.focusNext = options.key;
  ctx.rerender();
  say(text);
}

/** Why the last followed link shown at `where` did not lead to its cell, if it did not. */
export function cellNote(ctx: CardContext, where: string): HTMLElement | null {
  const note = ctx.state.cellNote;
  if (!note || note.where !== where) return null;
  return h("div", { class: "jp-plans-cell-note", attrs: { role: "note" } }, icon("info"), note.text);
}

function changedTag(changed: CellRun[]): HTMLElement {
  const which = `${changed.length === 1 ? "cell" : "cells"} ${changed.map((run) => `[${count(run)}]`).join(" ")}`;
  return h(
    "span",
    "jp-plans-changed",
    h("span", "jp-plans-tag jp-plans-tag-changed", icon("alert"), "changed after completion"),
    h("span", "jp-plans-changed-which", `${which} ran again with other code`),
  );
}

/** The line under a step with its cells (and the note of a link that led nowhere), if any. */
export function stepCells(ctx: CardContext, step: Step, runs: CellRun[]): HTMLElement | null {
  const note = cellNote(ctx, step.id);
  if (!runs.length && !note) return null;
  const changed = changedRuns(step, runs);
  const line = h("div", "jp-plans-step-cells");
  if (runs.length) {
    const list = h("span", {
      class: "jp-plans-cell-list",
      attrs: { role: "group", "aria-label": `Cells that ran for step ${step.id}` },
    });
    for (const run of runs) {
      list.append(
        cellLink(ctx, {
          key: `cell:${step.id}:${run.cell_id}`,
          where: step.id,
          cellId: run.cell_id,
          run,
          changed: changed.includes(run),
        }),
      );
    }
    line.append(h("span", "jp-plans-meta-label", "cells: "), list);
  }
  if (changed.length) line.append(changedTag(changed));
  if (note) line.append(note);
  return line;
}

/**
 * Text with `backtick` spans shown as code (as inlineText does) and every `cell:<id>` shown as a
 * link to that cell, named by its run among `runs` (else any step's) or by its id. Nothing else
 * is recognised: the text stays text.
 */
export function citedText(ctx: CardContext, where: string, text: string, runs: CellRun[]): Node {
  const fragment = document.createDocumentFragment();
  let cited = 0;
  const cite = (cellId: string): HTMLElement =>
    cellLink(ctx, {
      key: `cite:${where}:${cited++}`,
      where,
      cellId,
      run: knownRun(ctx.snapshot, cellId, runs),
      cited: true,
    });
  text.split(/`([^`\n]+)`/).forEach((part, index) => {
    if (part === "") return;
    if (index % 2 === 1) {
      const whole = WHOLE_CITE.exec(part);
      fragment.append(whole ? cite(whole[1]) : codeText(part));
      return;
    }
    let from = 0;
    for (const match of part.matchAll(CITED_CELL)) {
      const at = match.index ?? 0;
      if (at > from) fragment.append(part.slice(from, at));
      fragment.append(cite(match[1]));
      from = at + match[0].length;
    }
    if (from < part.length) fragment.append(part.slice(from));
  });
  return fragment;
}
