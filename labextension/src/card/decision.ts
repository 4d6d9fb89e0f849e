/**
 * The banner of a proposal waiting for the person's decision: what changed since the proposal
 * they saw, Approve (held while a note for changes is typed), the form that asks for changes,
 * leaving plan mode, and the `%plan approve HASH` to copy.
 */

import type { CardActions, Changes } from "../types";
import { decisionCommentsHint, openCount } from "./comments";
import { leaveButton, sendButton } from "./compose";
import type { CardContext } from "./context";
import { KEY_ATTR, button, dotSeparator, h, shortHash } from "./dom";
import { icon } from "./icons";
import { startInflight } from "./state";

function changeSummary(changes: Changes): HTMLElement {
  const line = h("div", "jp-plans-change-summary");
  const parts: HTMLElement[] = [];
  if (changes.added.length) parts.push(h("span", "jp-plans-count-added", `+${changes.added.length} added`));
  if (changes.reworded.length) parts.push(h("span", "jp-plans-count-reworded", `${changes.reworded.length} reworded`));
  if (changes.removed.length) parts.push(h("span", "jp-plans-count-removed", `${changes.removed.length} removed`));
  if (parts.length === 0) {
    line.append(h("span", "jp-plans-muted", `no step added, reworded or removed since the proposal you saw (rev ${changes.since_revision})`));
    return line;
  }
  parts.forEach((part, index) => {
    if (index > 0) line.append(dotSeparator());
    line.append(part);
  });
  line.append(h("span", "jp-plans-muted", ` since the proposal you saw (rev ${changes.since_revision})`));
  return line;
}

function copyHint(ctx: CardContext, hash: string, lead: string): HTMLElement {
  const command = `%plan approve ${hash}`;
  const { state } = ctx;
  const copied = Date.now() < state.copiedUntil;
  // The verb never shrinks; only the hash gives way (to an ellipsis) where the card is narrow.
  const code = h(
    "code",
    { class: "jp-plans-command", attrs: { title: command } },
    h("span", "jp-plans-command-verb", "%plan approve "),
    h("span", "jp-plans-command-hash", hash),
  );
  const copy = button(
    {
      class: "jp-plans-button-icon jp-plans-copy",
      key: "copy",
      label: copied ? "Copied" : "Copy the command",
      onClick: () => {
        const done = () => {
          state.copiedUntil = Date.now() + 1500;
          ctx.rerender();
          setTimeout(ctx.rerender, 1600);
        };
        if (navigator.clipboard?.writeText) {
          navigator.clipboard.writeText(command).then(done, () => selectText(code));
        } else {
          selectText(code);
        }
      },
    },
    copied ? icon("check") : icon("copy"),
  );
  return h("div", "jp-plans-hint", h("span", "jp-plans-muted", lead), h("span", "jp-plans-command-box", code, copy));
}

function selectText(node: Node): void {
  const selection = window.getSelection();
  if (!selection) return;
  const range = document.createRange();
  range.selectNodeContents(node);
  selection.removeAllRanges();
  selection.addRange(range);
}

function reviseForm(ctx: CardContext): HTMLElement {
  const { state, actions } = ctx;
  const busy = state.inflight !== null;
  const areaId = `${state.id}-revise`;
  const area = h("textarea", {
    class: "jp-plans-textarea",
    key: "revise-note",
    attrs: { id: areaId, rows: 3, placeholder: "What should the agent change in this proposal?", disabled: busy },
  });
  const send = sendButton(ctx, area, {
    draft: "reviseNote",
    kind: "revise",
    class: "jp-plans-button-primary",
    key: "revise-send",
    label: "Send",
    sends: (event) => event.key === "Enter" && (event.ctrlKey || event.metaKey),
    send: actions ? (notes) => actions.revise(notes) : null,
    blankSends: openCount(ctx) > 0, // the open comments alone say what should change
    // Approve is held back while a note is typed (no redraw: the text being typed stays).
    typed: () => {
      const card = area.closest(".jp-plans-card");
      const approve = card?.querySelector<HTMLButtonElement>(`[${KEY_ATTR}="approve"]`);
      if (approve) holdApprove(approve, ctx);
    },
  });
  const close = () => {
    state.reviseOpen = false;
    state.focusNext = "revise-toggle";
    ctx.rerender();
  };
  // Escape closes the form, as Cancel does; what was typed stays for when it is opened again.
  area.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || event.isComposing) return;
    event.preventDefault();
    event.stopPropagation(); // JupyterLab would take it to leave the cell's edit mode
    close();
  });
  const cancel = button(
    {
      class: "jp-plans-button-ghost",
      key: "revise-cancel",
      disabled: busy,
      onClick: close,
    },
    "Cancel",
  );
  return h(
    "div",
    { class: "jp-plans-revise", attrs: { id: `${state.id}-revise-form` } },
    h("label", { class: "jp-plans-label", attrs: { for: areaId } }, "Request changes: your note goes to the agent as your message"),
    area,
    h("div", "jp-plans-row", send, cancel, h("span", "jp-plans-muted jp-plans-small", "Ctrl+Enter sends")),
  );
}

function decisionButtons(ctx: CardContext, actions: CardActions, hash: string): HTMLElement {
  const { state } = ctx;
  const busy = state.inflight !== null;
  const kind = state.inflight?.kind;
  const approve = () => {
    startInflight(state, "approve", ctx.rerender);
    actions.approve(hash);
    ctx.rerender();
  };
  const approveButton = button(
    { class: "jp-plans-button-primary", key: "approve", onClick: approve },
    icon("check"),
    kind === "approve" ? "Approving…" : "Approve",
  );
  holdApprove(approveButton, ctx);
  return h(
    "div",
    "jp-plans-row jp-plans-decision-buttons",
    approveButton,
    button(
      {
        class: `jp-plans-button-secondary${state.reviseOpen ? " jp-plans-pressed" : ""}`,
        key: "revise-toggle",
        disabled: busy,
        attrs: { "aria-expanded": String(state.reviseOpen), "aria-controls": state.reviseOpen ? `${state.id}-revise-form` : undefined },
        onClick: () => {
          state.reviseOpen = !state.reviseOpen;
          state.focusNext = state.reviseOpen ? "revise-note" : null;
          ctx.rerender();
        },
      },
      "Request changes…",
    ),
    leaveButton(ctx, actions),
  );
}

/**
 * Approve waits while an action is sent, and while what the person has open would change the
 * proposal (an edit) or ask for changes to it (a typed note): approving would lose it.
 */
function holdApprove(approve: HTMLButtonElement, ctx: CardContext): void {
  const { state } = ctx;
  const editing = state.draft !== null;
  const noting = state.reviseOpen && state.reviseNote.trim() !== "";
  approve.disabled = state.inflight !== null || editing || noting;
  const why = editing
    ? "Save or cancel your edit first"
    : noting
      ? "Send or cancel your request for changes first"
      : null;
  if (why) approve.title = why;
  else approve.removeAttribute("title");
}

export function decisionBanner(ctx: CardContext, hash: string): HTMLElement {
  const { actions, changes, state } = ctx;
  // A card a newer one took over from tells of its own moment: the proposal waited then.
  const title = ctx.frame.supersededBy ? "Was waiting for a decision here" : "Waiting for your decision";
  const banner = h(
    "section",
    { class: "jp-plans-banner jp-plans-banner-waiting", attrs: { "aria-label": title } },
    h(
      "div",
      "jp-plans-banner-title",
      icon("pause"),
      // One block of text beside the icon, so a narrow card wraps words, never the icon alone.
      h(
        "span",
        "jp-plans-banner-words",
        h("strong", null, title),
        h("span", "jp-plans-muted jp-plans-banner-sep", dotSeparator()),
        h(
          "span",
          "jp-plans-banner-proposal",
          h("span", "jp-plans-muted", "proposal "),
          h("code", { class: "jp-plans-hash", attrs: { title: hash } }, shortHash(hash)),
        ),
      ),
    ),
  );
  if (changes) banner.append(changeSummary(changes));
  const bridged = ctx.data.bridged;
  if (bridged) {
    // The agent's own words for its option are shown as text, quoted.
    const said = bridged.approve ? `: Approve answers it “${bridged.approve}”.` : ".";
    banner.append(h("div", "jp-plans-bridged jp-plans-muted", `From an ACP agent, through the bridge${said}`));
  }
  const commented = decisionCommentsHint(ctx);
  if (commented) banner.append(commented);
  if (actions) {
    // `%plan approve HASH` ends the buttons' row where the banner is wide enough for both.
    const row = decisionButtons(ctx, actions, hash);
    row.append(copyHint(ctx, hash, "or run"));
    banner.append(row);
    if (state.reviseOpen) banner.append(reviseForm(ctx));
  } else {
    banner.append(copyHint(ctx, hash, "to approve, run"));
  }
  return banner;
}

/** What the agent's plan mode is doing now, in words: never more than the agent does. */
