/**
 * The agent's open question (asked with ask_user) and the person's one-line answer, which
 * goes to the agent as the person's own message.
 */

import { leaveButton, sendButton } from "./compose";
import type { CardContext } from "./context";
import { h, inlineText } from "./dom";
import { icon } from "./icons";

function answerForm(ctx: CardContext, send: (text: string) => void): HTMLElement {
  const { state } = ctx;
  const busy = state.inflight !== null;
  const inputId = `${state.id}-answer`;
  const hintId = `${state.id}-answer-hint`;
  const input = h("input", {
    class: "jp-plans-input jp-plans-answer-input",
    key: "answer-text",
    attrs: {
      id: inputId,
      type: "text",
      autocomplete: "off",
      placeholder: "Type your answer",
      "aria-describedby": hintId,
      disabled: busy,
    },
  });
  const submit = sendButton(ctx, input, {
    draft: "answerText",
    kind: "answer",
    class: "jp-plans-button-primary jp-plans-answer-send",
    key: "answer-send",
    label: "Answer",
    sends: (event) => event.key === "Enter" && !event.isComposing,
    send,
  });
  return h(
    "div",
    "jp-plans-answer",
    h("label", { class: "jp-plans-sr-only", attrs: { for: inputId } }, "Your answer to the agent's question"),
    h("div", "jp-plans-answer-row", input, submit),
    h(
      "div",
      { class: "jp-plans-muted jp-plans-small", attrs: { id: hintId } },
      "Your answer goes to the agent as your message. Enter sends.",
    ),
  );
}

/** Leaving plan mode also drops the question; offered here when no decision banner offers it. */
function questionLeaveButton(ctx: CardContext): HTMLElement | null {
  const { actions, snapshot } = ctx;
  if (!actions || snapshot.mode !== "plan" || snapshot.pending_proposal_hash) return null;
  return leaveButton(ctx, actions, "jp-plans-button-ghost jp-plans-question-leave");
}

/**
 * The question box. The question is model-authored text and goes in as text. Without
 * actions (a saved card) it shows the question only; where answers cannot be sent (the Plan
 * panel) it says where to answer.
 */
export function questionBanner(ctx: CardContext, question: string): HTMLElement {
  const { actions } = ctx;
  const banner = h(
    "section",
    { class: "jp-plans-banner jp-plans-banner-question", attrs: { "aria-label": "The agent asks you a question" } },
    h(
      "div",
      "jp-plans-banner-title",
      icon("question"),
      h("strong", null, "The agent asks"),
      h("span", "jp-plans-muted", "· waiting for your answer"),
      h("span", "jp-plans-spacer"),
      questionLeaveButton(ctx),
    ),
    h("p", "jp-plans-question-text", inlineText(question)),
  );
  if (actions?.answer) {
    banner.append(answerForm(ctx, (text) => actions.answer?.(text)));
  } else if (actions) {
    const hint = ctx.frame.answerHint ?? "Answer it from the plan card in the notebook.";
    banner.append(h("div", "jp-plans-question-hint jp-plans-muted jp-plans-small", hint));
  }
  return banner;
}
