/** The top of the card: error bar, header, explanation, and the decision banner. */

import type { CardActions, Changes, DecidedBy } from "../types";
import { decisionCommentsHint, openCommentsBadge, openCount } from "./comments";
import { leaveButton, sendButton } from "./compose";
import type { CardContext } from "./context";
import { KEY_ATTR, button, dotSeparator, h, inlineText, shortHash } from "./dom";
import { icon } from "./icons";
import { startInflight } from "./state";
import { startDraft } from "./draft";

export function errorBar(error: string): HTMLElement {
  return h(
    "div",
    { class: "jp-plans-error", attrs: { role: "alert" } },
    icon("alert"),
    h("span", "jp-plans-error-text", error),
  );
}

/** Plan mode is not enforced where the person may think it is: one line, as text. */
export function guardWarning(text: string): HTMLElement {
  return h(
    "div",
    { class: "jp-plans-guard-warning", attrs: { role: "note" } },
    icon("alert"),
    h("span", "jp-plans-guard-warning-text", text),
  );
}

function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || path;
}

// Where a decision was made, in words (plan/who.py says the same in Python).
const WHERE: Record<string, string> = {
  magic: "with %plan",
  card: "on the card",
  panel: "in the panel",
  palette: "from the command palette",
  server: "through the server",
  cli: "on the command line",
  api: "through the Python API",
  "acp-client": "in the ACP client",
  agent: "by the agent",
};

/** " by alice in the panel", as text (a name is never markup); "" when nobody is known. */
export function decidedBy(by: DecidedBy | null): string {
  if (!by) return "";
  const where = WHERE[by.via] ?? "";
  return ` ${by.name ? `by ${by.name} ` : ""}${where}`.trimEnd();
}

/**
 * The mode chip: plan mode, or out of it the bridged agent's own mode as it announced it
 * ("auto: edits no longer ask") where a bridge runs an agent, else the default mode.
 */
function modeChip(ctx: CardContext, planMode: boolean): HTMLElement {
  const agent = ctx.data.agent;
  const dot = h("span", { class: "jp-plans-chip-dot", attrs: { "aria-hidden": "true" } });
  if (planMode || !agent?.mode) {
    return h(
      "span",
      { class: `jp-plans-chip ${planMode ? "jp-plans-chip-plan" : "jp-plans-chip-default"}` },
      dot,
      planMode ? "PLAN MODE" : "DEFAULT MODE",
    );
  }
  const edits = agent.edits ? `: ${agent.edits}` : "";
  const own = agent.mode_words ? ` (its own words: ${agent.mode_words})` : "";
  return h(
    "span",
    {
      class: `jp-plans-chip jp-plans-chip-agent${agent.asks === false ? " jp-plans-chip-no-ask" : ""}`,
      attrs: { title: `${agent.agent} is in mode ${agent.mode}${own}` },
    },
    dot,
    `${agent.mode}${edits}`,
  );
}

export function header(ctx: CardContext): HTMLElement {
  const { snapshot, plan, actions, state } = ctx;
  const planMode = snapshot.mode === "plan";
  const bar = h("div", "jp-plans-header", h("span", "jp-plans-title", "Plan"));
  const notebook = ctx.data.notebook;
  if (notebook) {
    bar.append(
      h("span", { class: "jp-plans-divider", attrs: { "aria-hidden": "true" } }),
      h("span", { class: "jp-plans-notebook", attrs: { title: notebook } }, icon("notebook"), baseName(notebook)),
    );
  }
  bar.append(modeChip(ctx, planMode));
  const approved = snapshot.approved_proposal_hash;
  if (approved && !planMode && !snapshot.pending_proposal_hash) {
    bar.append(
      h(
        "span",
        { class: "jp-plans-approved", attrs: { title: `Approved proposal ${approved}` } },
        icon("check"),
        "approved ",
        h("code", null, shortHash(approved)),
        decidedBy(ctx.data.approved_by ?? null),
      ),
    );
  }
  const commented = openCommentsBadge(ctx);
  if (commented) bar.append(commented);
  if (snapshot.session_id && snapshot.session_id !== "default") {
    bar.append(h("span", "jp-plans-session", "session ", h("code", null, snapshot.session_id)));
  }
  bar.append(h("span", "jp-plans-spacer"));
  if (actions?.edit && plan && !state.draft) {
    bar.append(
      button(
        {
          class: "jp-plans-button-ghost jp-plans-edit-button",
          key: "edit",
          title: "Edit the steps: reword, reorder, add or remove",
          disabled: state.inflight !== null,
          onClick: () => {
            state.draft = startDraft(plan);
            state.focusNext = "save";
            ctx.rerender();
          },
        },
        icon("pencil"),
        "Edit",
      ),
    );
  }
  if (plan) {
    bar.append(h("span", { class: "jp-plans-rev", attrs: { title: `Plan revision ${plan.revision}` } }, `rev ${plan.revision}`));
  }
  return bar;
}

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
    banner.append(decisionButtons(ctx, actions, hash));
    if (state.reviseOpen) banner.append(reviseForm(ctx));
    banner.append(copyHint(ctx, hash, "or run"));
  } else {
    banner.append(copyHint(ctx, hash, "to approve, run"));
  }
  return banner;
}

/** What the agent's plan mode is doing now, in words: never more than the agent does. */
function activityWords(ctx: CardContext): { kind: string; text: string } {
  const activity = ctx.data.activity;
  const name = ctx.data.agent?.agent ?? "The agent";
  if (activity === "chat") {
    const notes = ctx.data.notes ? " Your requested changes go to it with that message." : "";
    return { kind: "chat", text: `${name} waits for your next message in the chat.${notes}` };
  }
  if (activity === "none") {
    return {
      kind: "none",
      text: "Plan mode waits for an agent: ask one for a plan (in the chat, or from a cell), and its proposal will appear here for you to review.",
    };
  }
  return { kind: "researching", text: "The agent is researching and preparing a proposal for you to review here." };
}

export function activityBanner(ctx: CardContext): HTMLElement {
  const { actions } = ctx;
  const { kind, text } = activityWords(ctx);
  return h(
    "div",
    { class: `jp-plans-banner jp-plans-banner-researching jp-plans-banner-${kind}`, attrs: { role: "status" } },
    icon(kind === "researching" ? "search" : "pause"),
    h("span", "jp-plans-banner-text", text),
    actions ? leaveButton(ctx, actions) : null,
  );
}

/** The person's request for changes, in their words, until the agent proposes again. */
export function notesLine(notes: string): HTMLElement {
  return h(
    "div",
    { class: "jp-plans-notes", attrs: { role: "note" } },
    h("span", "jp-plans-notes-label", "Changes you asked for: "),
    h("span", "jp-plans-notes-text", notes),
  );
}

export function explanation(text: string): HTMLElement {
  return h("p", "jp-plans-explanation", inlineText(text));
}

export function emptyState(planMode: boolean): HTMLElement {
  if (planMode) {
    return h("div", "jp-plans-empty", h("strong", null, "No plan yet."), " The agent's proposal will appear here.");
  }
  return h(
    "div",
    "jp-plans-empty",
    h("strong", null, "No plan yet."),
    " Start plan mode with ",
    h("code", null, "%plan on"),
    " or give a task with ",
    h("code", null, "%plan <task>"),
    ".",
  );
}
