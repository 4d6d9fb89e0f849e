/**
 * The person's comments (DESIGN section 14): a thread under each step (and one for the plan as
 * a whole), each comment with who made it, its status, where it stands on the plan now and the
 * agent's reply; a Comment action per step, Resolve and Reopen on each comment; the count of
 * open ones for the header. The person's words and the agent's reply go in as text, and the
 * reply is always labelled as the agent's.
 */

import type { Plan, PlanComment, Step } from "../types";
import { sendButton } from "./compose";
import type { CardContext } from "./context";
import { button, h, plural, srOnly } from "./dom";
import { icon } from "./icons";
import { startInflight } from "./state";
import { shownName } from "./who";

const PLAN_THREAD = "plan";

/** The key of a thread: a step's, or the plan's as a whole. */
export function threadKey(stepId: string | null): string {
  return stepId === null ? PLAN_THREAD : `step:${stepId}`;
}

function commentsOf(ctx: CardContext): PlanComment[] {
  return ctx.snapshot.comments ?? [];
}

/** Where a comment stands on the plan now, as the card, plan.md and %plan comments say it. */
export function anchorWords(comment: PlanComment, plan: Plan | null): string | null {
  if (comment.step_id === null) return null;
  const step = plan?.steps.find((candidate) => candidate.id === comment.step_id);
  if (!step) return `on a removed step: ${comment.anchor ?? ""}`;
  return step.description === comment.anchor ? null : `on an earlier wording: ${comment.anchor ?? ""}`;
}

/** How many comments wait for the agent (status open). */
export function openCount(ctx: CardContext): number {
  return commentsOf(ctx).filter((comment) => comment.status === "open").length;
}

/** In the decision banner, while comments are open: what the decision does with them. */
export function decisionCommentsHint(ctx: CardContext): HTMLElement | null {
  const open = openCount(ctx);
  if (!open) return null;
  const them = open === 1 ? "it" : "them";
  return h(
    "div",
    "jp-plans-comments-hint jp-plans-muted jp-plans-small",
    icon("comment"),
    `${plural(open, "open comment goes", "open comments go")} with your decision: approving leaves ` +
      `${them} for the agent to follow; a request for changes sends ${them} after your note.`,
  );
}

/** The header's count of open comments (those waiting for the agent); null when none is. */
export function openCommentsBadge(ctx: CardContext): HTMLElement | null {
  const comments = commentsOf(ctx);
  const open = comments.filter((comment) => comment.status === "open").length;
  const addressed = comments.filter((comment) => comment.status === "addressed").length;
  if (!open && !addressed) return null;
  const words = open
    ? plural(open, "open comment", "open comments")
    : `${addressed} addressed, to resolve`;
  const title = addressed
    ? `${plural(addressed, "comment", "comments")} addressed by the agent, waiting for you to resolve`
    : "Comments waiting for the agent";
  return h(
    "span",
    { class: `jp-plans-comment-count${open ? "" : " jp-plans-comment-count-addressed"}`, attrs: { title } },
    icon("comment"),
    words,
  );
}

const STATUS_WORDS: Record<PlanComment["status"], string> = {
  open: "open",
  addressed: "addressed by the agent",
  resolved: "resolved",
};

function statusButtons(ctx: CardContext, comment: PlanComment): HTMLElement | null {
  const { actions, state } = ctx;
  if (!actions?.resolve || !actions.reopen) return null;
  const busy = state.inflight !== null;
  const act = (kind: "resolve" | "reopen") => () => {
    // Once answered, focus the button that undoes it: Resolve becomes Reopen and back.
    const after = `${kind === "resolve" ? "reopen" : "resolve"}:${comment.id}`;
    startInflight(state, kind, ctx.rerender, after);
    if (kind === "resolve") actions.resolve?.(comment.id);
    else actions.reopen?.(comment.id);
    ctx.rerender();
  };
  const control = (kind: "resolve" | "reopen", words: string) =>
    button(
      {
        class: "jp-plans-button-ghost jp-plans-small-button",
        key: `${kind}:${comment.id}`,
        disabled: busy,
        label: `${words} comment ${comment.id}`,
        onClick: act(kind),
      },
      words,
    );
  const row = h("span", "jp-plans-comment-actions");
  // Open: Resolve. Addressed: Resolve, or Reopen when the reply does not answer it. Resolved: Reopen.
  if (comment.status !== "resolved") row.append(control("resolve", "Resolve"));
  if (comment.status !== "open") row.append(control("reopen", "Reopen"));
  return row;
}

/**
 * One comment: who, its status and the person's words on one line where the card is wide
 * enough (the words wrap under where it is not), where it stands on the plan now above them,
 * the agent's reply under them.
 */
function commentItem(ctx: CardContext, comment: PlanComment): HTMLElement {
  const who = shownName(comment.by) ?? "someone";
  const where = anchorWords(comment, ctx.plan);
  const status = STATUS_WORDS[comment.status] ?? comment.status;
  return h(
    "li",
    { class: `jp-plans-comment jp-plans-comment-${comment.status}`, attrs: { "data-comment-id": comment.id } },
    where ? h("div", "jp-plans-comment-anchor", where) : null,
    h(
      "span",
      "jp-plans-comment-head",
      h("span", "jp-plans-comment-who", who),
      h("span", `jp-plans-comment-status jp-plans-comment-status-${comment.status}`, status),
      h("code", "jp-plans-comment-id", comment.id),
    ),
    h("span", "jp-plans-comment-text", comment.text),
    statusButtons(ctx, comment),
    // Model-authored: as text, and labelled as the agent's, never as the person's words.
    comment.reply
      ? h("div", "jp-plans-comment-reply", h("span", "jp-plans-comment-reply-label", "The agent replied: "), comment.reply)
      : null,
  );
}

function commentForm(ctx: CardContext, key: string, what: string, stepId: string | null): HTMLElement {
  const { state, actions } = ctx;
  const areaId = `${state.id}-comment-${key}`;
  const area = h("textarea", {
    class: "jp-plans-textarea jp-plans-comment-input",
    key: `comment-text:${key}`,
    attrs: { id: areaId, rows: 2, maxlength: 2000, placeholder: "Your comment", disabled: state.inflight !== null },
  });
  const send = sendButton(ctx, area, {
    draft: "commentText",
    kind: "comment",
    class: "jp-plans-button-primary",
    key: `comment-send:${key}`,
    label: "Comment",
    sends: (event) => event.key === "Enter" && (event.ctrlKey || event.metaKey),
    send: actions?.comment ? (text) => actions.comment?.(stepId, text) : null,
    focusAfter: `comment-toggle:${key}`,
  });
  const close = () => {
    state.commentOn = null;
    state.focusNext = `comment-toggle:${key}`;
    ctx.rerender();
  };
  area.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || event.isComposing) return;
    event.preventDefault();
    event.stopPropagation(); // JupyterLab would take it to leave the cell's edit mode
    close();
  });
  const cancel = button({ class: "jp-plans-button-ghost", key: `comment-cancel:${key}`, onClick: close }, "Cancel");
  return h(
    "div",
    { class: "jp-plans-comment-form", attrs: { id: `${areaId}-form` } },
    h("label", { class: "jp-plans-label", attrs: { for: areaId } }, `Your comment ${what}: it goes to the agent as your words`),
    area,
    h("div", "jp-plans-row", send, cancel, h("span", "jp-plans-muted jp-plans-small", "Ctrl+Enter sends")),
  );
}

/**
 * The "Comment" button that opens a thread's form: on a step's own row, its icon alone (shown
 * on hover and focus, always reachable by keyboard and screen reader; its name and tooltip say
 * which step), or under the plan, with its words, for the plan as a whole.
 */
export function commentToggle(ctx: CardContext, stepId: string | null, what: string, words?: string): HTMLElement | null {
  const { state } = ctx;
  if (!ctx.actions?.comment) return null;
  const key = threadKey(stepId);
  const open = state.commentOn === key;
  return button(
    {
      class: `jp-plans-button-ghost jp-plans-small-button jp-plans-comment-toggle${open ? " jp-plans-pressed" : ""}`,
      key: `comment-toggle:${key}`,
      label: `Comment ${what}`,
      disabled: state.inflight !== null,
      attrs: { "aria-expanded": String(open) },
      onClick: () => {
        if (state.commentOn !== key) state.commentText = "";
        state.commentOn = open ? null : key;
        state.focusNext = open ? null : `comment-text:${key}`;
        ctx.rerender();
      },
    },
    icon("comment"),
    words ? h("span", "jp-plans-comment-toggle-words", words) : srOnly("Comment"),
  );
}

/** A thread: its comments, then the form where it is open; null when neither is there. */
function thread(ctx: CardContext, comments: PlanComment[], stepId: string | null, what: string): HTMLElement | null {
  const key = threadKey(stepId);
  const form = ctx.actions?.comment && ctx.state.commentOn === key ? commentForm(ctx, key, what, stepId) : null;
  if (!comments.length && !form) return null;
  const block = h("div", { class: "jp-plans-thread", attrs: { "data-thread": key } });
  if (comments.length) {
    const items = comments.map((comment) => commentItem(ctx, comment));
    block.append(h("ul", { class: "jp-plans-comments", attrs: { "aria-label": `Comments ${what}` } }, ...items));
  }
  if (form) block.append(form);
  return block;
}

/** Under a step: its comments, and the form while it is open (its Comment is on the row). */
export function stepThread(ctx: CardContext, step: Step): HTMLElement | null {
  const found = commentsOf(ctx).filter((comment) => comment.step_id === step.id);
  return thread(ctx, found, step.id, `on step ${step.id}`);
}

/**
 * After the steps: the comments on the plan as a whole and on removed steps, and one small
 * "Comment on the plan".
 */
export function otherThreads(ctx: CardContext): HTMLElement | null {
  const comments = commentsOf(ctx);
  const steps = new Set((ctx.plan?.steps ?? []).map((step) => step.id));
  const what = "on the plan as a whole";
  const whole = thread(ctx, comments.filter((comment) => comment.step_id === null), null, what);
  const removed = comments.filter((comment) => comment.step_id !== null && !steps.has(comment.step_id));
  const toggle = commentToggle(ctx, null, what, "Comment on the plan");
  if (!whole && !removed.length && !toggle) return null;
  const block = h("section", { class: "jp-plans-other-threads", attrs: { "aria-label": "Comments beside the steps" } });
  if (whole) block.append(h("div", "jp-plans-thread-title", "On the plan as a whole"), whole);
  if (removed.length) {
    const items = removed.map((comment) => commentItem(ctx, comment));
    block.append(
      h("div", "jp-plans-thread-title", "On removed steps"),
      h("ul", { class: "jp-plans-comments", attrs: { "aria-label": "Comments on removed steps" } }, ...items),
    );
  }
  if (toggle) block.append(toggle);
  return block;
}
