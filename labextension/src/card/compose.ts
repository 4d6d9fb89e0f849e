/**
 * The controls that send the person's actions: a text field with its send button (an answer
 * to the agent's question and a request for changes are written the same way), and Leave
 * plan mode, offered by every banner that waits on the agent or the person.
 */

import type { CardActions } from "../types";
import type { CardContext } from "./context";
import { button } from "./dom";
import { startInflight } from "./state";

export interface SendOptions {
  /** Where the half-typed text is kept across re-renders. */
  draft: "answerText" | "reviseNote" | "commentText";
  kind: "answer" | "revise" | "comment";
  class: string;
  key: string;
  label: string;
  /** Whether a key press in the field sends (Enter in a line, Ctrl+Enter in a box). */
  sends: (event: KeyboardEvent) => boolean;
  /** Sends the trimmed text; null when there is nowhere to send it. */
  send: ((text: string) => void) | null;
  /** Told of each change to the text, after the draft is kept. */
  typed?: () => void;
  /** A key to focus once the action is answered (the form it was sent from is gone then). */
  focusAfter?: string;
  /** Sends even with no text (a request for changes made of the open comments alone). */
  blankSends?: boolean;
}

/**
 * Fills `field` with its draft and returns its send button, enabled only while the text is not
 * blank and showing "Sending…" while this kind of action waits for the snapshot to move.
 */
export function sendButton(
  ctx: CardContext,
  field: HTMLInputElement | HTMLTextAreaElement,
  options: SendOptions,
): HTMLButtonElement {
  const { state } = ctx;
  const busy = state.inflight !== null;
  field.value = state[options.draft];
  const submit = button(
    {
      class: options.class,
      key: options.key,
      disabled: busy || (state[options.draft].trim() === "" && !options.blankSends),
      onClick: () => {
        const text = state[options.draft].trim();
        if ((!text && !options.blankSends) || !options.send) return;
        startInflight(state, options.kind, ctx.rerender, options.focusAfter ?? null);
        options.send(text);
        ctx.rerender();
      },
    },
    busy && state.inflight?.kind === options.kind ? "Sending…" : options.label,
  );
  field.addEventListener("input", () => {
    state[options.draft] = field.value;
    submit.disabled = busy || (field.value.trim() === "" && !options.blankSends);
    options.typed?.();
  });
  field.addEventListener("keydown", (event) => {
    if (!options.sends(event as KeyboardEvent)) return;
    event.preventDefault();
    if (!submit.disabled) submit.click();
  });
  return submit;
}

/** "Leave plan mode": disabled while any action waits, "Leaving…" while this one does. */
export function leaveButton(ctx: CardContext, actions: CardActions, className = "jp-plans-button-ghost"): HTMLButtonElement {
  const { state } = ctx;
  return button(
    {
      class: className,
      key: "off",
      disabled: state.inflight !== null,
      onClick: () => {
        startInflight(state, "off", ctx.rerender);
        actions.off();
        ctx.rerender();
      },
    },
    state.inflight?.kind === "off" ? "Leaving…" : "Leave plan mode",
  );
}
