/** The top of the card: error bar, header, explanation, and the decision banner. */

import type { DecidedBy } from "../types";
import { openCommentsBadge } from "./comments";
import { leaveButton } from "./compose";
import type { CardContext } from "./context";
import { button, h, inlineText, shortHash, standing } from "./dom";
import { icon } from "./icons";
import { startDraft } from "./draft";
import { shownName } from "./who";

export function errorBar(error: string): HTMLElement {
  return h(
    "div",
    { class: "jp-plans-error", attrs: { role: "alert" } },
    icon("alert"),
    h("span", "jp-plans-error-text", error),
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
  const name = shownName(by);
  return ` ${name ? `by ${name} ` : ""}${where}`.trimEnd();
}

/**
 * The mode chip: plan mode, or out of it the bridged agent's own mode as it announced it
 * ("auto: edits no longer ask") where a bridge runs an agent, else the default mode.
 */
function modeChip(ctx: CardContext, planMode: boolean): HTMLElement {
  const agent = ctx.data.agent;
  const dot = h("span", { class: "jp-plans-chip-dot", attrs: { "aria-hidden": "true" } });
  if (planMode || !agent?.mode) {
    const words = planMode ? "PLAN MODE" : "DEFAULT MODE";
    return h(
      "span",
      {
        class: `jp-plans-chip ${planMode ? "jp-plans-chip-plan" : "jp-plans-chip-default"}`,
        attrs: standing("mode", planMode ? "Plan mode" : "Default mode"),
      },
      dot,
      words,
    );
  }
  const edits = agent.edits ? `: ${agent.edits}` : "";
  const own = agent.mode_words ? ` (its own words: ${agent.mode_words})` : "";
  return h(
    "span",
    {
      class: `jp-plans-chip jp-plans-chip-agent${agent.asks === false ? " jp-plans-chip-no-ask" : ""}`,
      attrs: {
        title: `${agent.agent} is in mode ${agent.mode}${own}`,
        ...standing("mode", `${agent.agent} is in mode ${agent.mode}${edits}`),
      },
    },
    dot,
    `${agent.mode}${edits}`,
  );
}

/**
 * The session, only where the plan file holds others (a saved card, which does not know, names
 * any but `default`); "session-2" is not said as "session session-2".
 */
function sessionChip(ctx: CardContext): HTMLElement | null {
  const id = ctx.snapshot.session_id;
  const count = ctx.data.sessions;
  if (!id || (count === undefined ? id === "default" : count < 2)) return null;
  return h(
    "span",
    { class: "jp-plans-session", attrs: { title: `Session ${id} of this plan file` } },
    /^session\b/i.test(id) ? null : "session ",
    h("code", null, id),
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
    const said = `approved ${shortHash(approved)}${decidedBy(ctx.data.approved_by ?? null)}`;
    bar.append(
      h(
        "span",
        {
          class: "jp-plans-approved",
          attrs: { title: `Approved proposal ${approved}`, ...standing("decided", said) },
        },
        icon("check"),
        "approved ",
        h("code", null, shortHash(approved)),
        decidedBy(ctx.data.approved_by ?? null),
      ),
    );
  }
  const commented = openCommentsBadge(ctx);
  if (commented) bar.append(commented);
  const session = sessionChip(ctx);
  if (session) bar.append(session);
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

function activityWords(ctx: CardContext): { kind: string; text: string } {
  const activity = ctx.data.activity;
  const name = ctx.data.agent?.agent ?? "The agent";
  if (activity === "chat") {
    const notes = ctx.data.notes ? " Your requested changes go to it with that message." : "";
    const ended = ctx.data.agent?.ended ? `${ctx.data.agent.ended} ` : "";
    return { kind: "chat", text: `${ended}${name} waits for your next message in the chat.${notes}` };
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
    {
      class: `jp-plans-banner jp-plans-banner-researching jp-plans-banner-${kind}`,
      attrs: { role: "status", ...standing("activity", text) },
    },
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
