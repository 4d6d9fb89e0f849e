/**
 * What the card remembers between renders of the same host: open sections, a half-typed
 * note or answer, an unsaved edit, an action waiting for its answer. Kept per host element, so every
 * surface that calls renderCard on a host it keeps gets this for free.
 */

import type { CardActions, CardData, CardFrame, Mode, Phase, Step } from "../types";

export interface DraftStep extends Step {
  isNew: boolean;
}

export interface DraftPhase {
  title: string | null;
  steps: DraftStep[];
}

export interface Draft {
  /** The revision the edit started from; saving is checked against it. */
  baseRevision: number;
  phases: DraftPhase[];
  /** The phases as they were when the edit started (JSON), to tell an unchanged draft. */
  original: string;
}

/** One line beside a followed link to a cell that did not lead there, and where it shows. */
export interface CellNote {
  /** The step id, or `review:<n>` for an objective of the final review. */
  where: string;
  cellId: string;
  text: string;
}

export type ActionKind = "approve" | "revise" | "off" | "edit" | "answer" | CommentKind;

/** The person's acts on comments: they move only the cursor (no revision, mode or hash). */
export type CommentKind = "comment" | "resolve" | "reopen";
const COMMENT_KINDS: ReadonlySet<ActionKind> = new Set(["comment", "resolve", "reopen"]);

/** An action sent and not yet answered: its buttons stay disabled until the snapshot moves. */
export interface Inflight {
  kind: ActionKind;
  mode: Mode;
  hash: string | null;
  revision: number | null;
  question: string | null;
  /** The session's cursor when it was sent: a comment's act moves only this. */
  cursor: number;
  /** A key to focus once it is answered (a resolved comment's Reopen button). */
  focusAfter: string | null;
  timer: ReturnType<typeof setTimeout>;
}

export interface UiState {
  id: string;
  data: CardData | null;
  actions: CardActions | undefined;
  error: string | null;
  frame: CardFrame;
  collapsed: Set<string>;
  /** The disclosures the person opened (a guard warning's why and fix), closed by default. */
  expanded: Set<string>;
  reviseOpen: boolean;
  reviseNote: string;
  /** A half-typed answer to the agent's question, and the question it was typed for. */
  answerText: string;
  answerQuestion: string | null;
  draft: Draft | null;
  inflight: Inflight | null;
  copiedUntil: number;
  /** Set by the card's own re-renders, so they are not taken for an answer. */
  selfRender: boolean;
  /** A key to focus after the next render (a new input, the next row after a removal). */
  focusNext: string | null;
  /** The sentence the page's live region last had for this card (announce.ts). */
  announced: string | null;
  /** Why the last followed link to a cell did not lead there (cells.ts). */
  cellNote: CellNote | null;
  /** The cells a followed link found gone from the notebook. */
  goneCells: Set<string>;
  /** The notebook and session those two are about (the Plan panel shows one, then another). */
  cellsOf: string | null;
  /** The thread whose comment form is open (comments.ts threadKey), and its half-typed text. */
  commentOn: string | null;
  commentText: string;
}

/** How long an unanswered action keeps its buttons disabled. */
const INFLIGHT_TIMEOUT_MS = 15000;

const states = new WeakMap<HTMLElement, UiState>();
let counter = 0;

export function stateFor(host: HTMLElement): UiState {
  let state = states.get(host);
  if (!state) {
    counter += 1;
    state = {
      id: `jp-plans-${counter}`,
      data: null,
      actions: undefined,
      error: null,
      frame: {},
      collapsed: new Set(),
      expanded: new Set(),
      reviseOpen: false,
      reviseNote: "",
      answerText: "",
      answerQuestion: null,
      draft: null,
      inflight: null,
      copiedUntil: 0,
      selfRender: false,
      focusNext: null,
      announced: null,
      cellNote: null,
      goneCells: new Set(),
      cellsOf: null,
      commentOn: null,
      commentText: "",
    };
    states.set(host, state);
  }
  return state;
}

export function startInflight(
  state: UiState,
  kind: ActionKind,
  rerender: () => void,
  focusAfter: string | null = null,
): void {
  const snapshot = state.data?.snapshot;
  if (!snapshot) return;
  if (state.inflight) clearTimeout(state.inflight.timer);
  state.inflight = {
    kind,
    mode: snapshot.mode,
    hash: snapshot.pending_proposal_hash,
    revision: snapshot.plan?.revision ?? null,
    question: state.data?.question ?? null,
    cursor: snapshot.cursor,
    focusAfter,
    timer: setTimeout(() => {
      state.inflight = null;
      rerender();
    }, INFLIGHT_TIMEOUT_MS),
  };
}

/**
 * Settles a waiting action against fresh data: a moved snapshot answers it (the note or the
 * edit it carried is done with); an error on an outside render means it was refused, and
 * the note or the edit stays for another try.
 */
export function settleInflight(state: UiState, data: CardData, error: string | null): void {
  const inflight = state.inflight;
  if (!inflight) return;
  const snapshot = data.snapshot;
  const moved =
    snapshot.mode !== inflight.mode ||
    snapshot.pending_proposal_hash !== inflight.hash ||
    (snapshot.plan?.revision ?? null) !== inflight.revision ||
    (data.question ?? null) !== inflight.question ||
    (COMMENT_KINDS.has(inflight.kind) && snapshot.cursor !== inflight.cursor);
  if (moved) {
    if (inflight.kind === "revise") {
      state.reviseNote = "";
      state.reviseOpen = false;
    }
    if (inflight.kind === "edit") state.draft = null;
    if (inflight.kind === "answer") state.answerText = "";
    if (inflight.kind === "comment") {
      state.commentText = "";
      state.commentOn = null;
    }
    if (inflight.focusAfter) state.focusNext = inflight.focusAfter;
  } else if (!(error && !state.selfRender)) {
    return;
  }
  clearTimeout(inflight.timer);
  state.inflight = null;
}

/**
 * A waiting proposal that is gone takes the request-changes form with it; a question that
 * is gone (answered elsewhere, dropped, asked anew) takes the answer typed for it; another
 * notebook or session takes what links to cells found, and an open comment form.
 */
export function dropStaleForms(state: UiState, data: CardData): void {
  if (!data.snapshot.pending_proposal_hash && !state.inflight) {
    state.reviseOpen = false;
  }
  const question = data.question ?? null;
  if (question !== state.answerQuestion) {
    state.answerText = "";
    state.answerQuestion = question;
  }
  // What the links to cells found is about one notebook's session, not the next one shown.
  const cellsOf = `${data.notebook ?? ""}\n${data.snapshot.session_id}`;
  if (cellsOf !== state.cellsOf) {
    state.cellNote = null;
    state.goneCells.clear();
    // A comment half-typed on a step of one notebook's plan is not for the next one shown.
    if (state.cellsOf !== null) {
      state.commentOn = null;
      state.commentText = "";
    }
    state.cellsOf = cellsOf;
  }
}

export function phasesOf(plan: { phases: Phase[]; steps: Step[] }): Phase[] {
  // A client that knows only a flat list may send no phases; show its steps as one phase.
  if (plan.phases.length === 0 && plan.steps.length > 0) return [{ title: null, steps: plan.steps }];
  return plan.phases;
}
