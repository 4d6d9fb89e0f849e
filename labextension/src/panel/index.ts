/**
 * The Plan side panel: the active notebook's plan, live from the server extension's event
 * stream, with the person's real decisions (approve, request changes, leave plan mode). The
 * agent's open question is shown here; it is answered from the card in the notebook.
 */

import type { Message } from "@lumino/messaging";
import { Widget } from "@lumino/widgets";
import type { CommentAct, Decision, PlansApi, SessionSummary } from "../api";
import { renderCard } from "../card";
import { h } from "../card/dom";
import type { CardActions } from "../types";
import { PlanFeed } from "./feed";
import type { FeedSettings, FeedView } from "./feed";

export type PanelSettings = FeedSettings;

const EDIT_NOTICE =
  "Edits are saved from the card in the notebook; the Plan panel cannot save them yet (your edit is still open below).";

export class PlanPanel extends Widget {
  private readonly feed: PlanFeed;
  private actionError: string | null = null;
  /** The session's cursor when actionError was set: a later change makes it stale. */
  private actionErrorCursor: number | null = null;

  private readonly sessionPicker = h("select", "jp-plans-panel-sessions");
  private readonly pickerLabel = h("label", "jp-plans-panel-label", h("span", "jp-plans-panel-label-text", "Session"));
  private readonly status = h("span", "jp-plans-panel-status");
  private readonly cardHost = h("div", "jp-plans-panel-card");
  private readonly message = h("div", "jp-plans-panel-message");
  private readonly actions: CardActions;

  constructor(
    api: PlansApi,
    private readonly settings: () => PanelSettings,
  ) {
    super();
    this.addClass("jp-plans-panel");
    this.title.caption = "Plan";
    this.feed = new PlanFeed(api, settings, () => this.render());

    this.pickerLabel.append(this.sessionPicker);
    this.sessionPicker.addEventListener("change", () => {
      this.clearActionError();
      this.feed.pickSession(this.sessionPicker.value);
    });
    const refresh = h("button", "jp-plans-panel-refresh", "Refresh");
    refresh.type = "button";
    refresh.title = "Read the plan again";
    refresh.addEventListener("click", () => void this.feed.refresh());
    const bar = h("div", "jp-plans-panel-bar");
    bar.append(this.pickerLabel, h("span", "jp-plans-panel-spacer"), this.status, refresh);
    const body = h("div", "jp-plans-panel-body");
    body.append(this.message, this.cardHost);
    this.node.append(bar, body);

    this.actions = {
      approve: (hash) => void this.decide({ action: "approve", hash }),
      revise: (notes) => void this.decide({ action: "revise", notes }),
      off: () => void this.decide({ action: "off" }),
      edit: () => {
        this.showActionError(EDIT_NOTICE);
        this.render();
      },
      comment: (stepId, text) => void this.comment({ step_id: stepId, text }),
      resolve: (commentId) => void this.comment({ resolve: commentId }),
      reopen: (commentId) => void this.comment({ reopen: commentId }),
    };
    this.render();
  }

  /** The notebook shown, as a path relative to the server root; null when none is active. */
  get notebook(): string | null {
    return this.feed.notebook;
  }

  set notebook(path: string | null) {
    if (path !== this.feed.notebook) this.clearActionError();
    this.feed.setNotebook(path);
  }

  refresh(): Promise<void> {
    return this.feed.refresh();
  }

  /** Opening the tab draws what the feed holds, and reads the plan again in case it is behind. */
  protected override onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    this.render();
    void this.feed.refresh(false);
  }

  settingsChanged(): void {
    this.feed.settingsChanged();
    this.render();
  }

  override dispose(): void {
    if (this.isDisposed) return;
    this.feed.dispose();
    super.dispose();
  }

  private decide(decision: Decision): Promise<void> {
    return this.answered(this.feed.decide(decision));
  }

  private comment(act: CommentAct): Promise<void> {
    return this.answered(this.feed.comment(act));
  }

  private async answered(sent: ReturnType<PlanFeed["decide"]>): Promise<void> {
    const refusal = await sent;
    if (refusal === null) this.clearActionError();
    else this.showActionError(refusal.message, refusal.cursor);
    // A refusal changes nothing on the server, so no event redraws the card: draw it here.
    this.render();
  }

  /** One line in the card's error bar, until the next decision or the plan moves past `cursor`. */
  private showActionError(message: string, cursor?: number): void {
    const view = this.feed.view;
    this.actionError = message;
    this.actionErrorCursor = cursor ?? (view.kind === "card" ? view.data.snapshot.cursor : null);
  }

  private clearActionError(): void {
    this.actionError = null;
    this.actionErrorCursor = null;
  }

  private render(): void {
    const view = this.feed.view;
    this.renderPicker();
    this.renderStatus();
    // Only the current session asks now: an earlier one's waiting proposal marks no tab.
    const earlier = this.earlierShown();
    const waiting = view.kind === "card" && !earlier && view.data.snapshot.pending_proposal_hash !== null;
    const asked = view.kind === "card" && !earlier && Boolean(view.data.question);
    this.title.className = waiting || asked ? "jp-plans-tab-waiting" : "";
    this.title.caption = waiting
      ? "Plan: a proposal is waiting for your decision"
      : asked
        ? "Plan: the agent is waiting for your answer"
        : "Plan";
    // A closed panel keeps its tab current and draws its card only when it is opened.
    if (!this.isVisible) return;
    if (view.kind === "card") {
      const cursor = view.data.snapshot.cursor;
      if (this.actionErrorCursor !== null && cursor > this.actionErrorCursor) this.clearActionError();
      this.message.hidden = earlier === null;
      this.message.replaceChildren(...(earlier ? [this.earlierNotice(earlier)] : []));
      this.cardHost.hidden = false;
      renderCard(this.cardHost, view.data, this.actions, this.actionError);
      return;
    }
    this.cardHost.hidden = true;
    this.cardHost.replaceChildren();
    this.message.hidden = false;
    this.message.replaceChildren(...this.messageFor(view));
  }

  private messageFor(view: Exclude<FeedView, { kind: "card" }>): Node[] {
    switch (view.kind) {
      case "no-notebook":
        return [h("p", "jp-plans-panel-lead", "Open a notebook to see its plan here.")];
      case "loading":
        return [h("p", "jp-plans-panel-muted", "Reading the plan…")];
      case "no-plan": {
        const load = h(
          "p",
          "jp-plans-panel-muted",
          "Load the extension in the notebook with ",
          h("code", null, "%load_ext jupyter_plans"),
          ".",
        );
        const start = h(
          "p",
          "jp-plans-panel-muted",
          "Then start plan mode with ",
          h("code", null, "%plan on"),
          " or give a task with ",
          h("code", null, "%plan <task>"),
          ": the plan appears here as it is written.",
        );
        // Cards saved in the notebook may show a plan: they are what an earlier run showed.
        const saved = h(
          "p",
          "jp-plans-panel-muted",
          "Cards saved in the notebook show the plan of the run that saved them; its plan file is not here.",
        );
        return [h("p", "jp-plans-panel-lead", "No plan file for this notebook yet."), saved, load, start];
      }
      case "failed":
        return [
          h("p", "jp-plans-panel-lead", "The plan could not be read."),
          h("p", "jp-plans-panel-error", view.message),
          h("p", "jp-plans-panel-muted", `Trying again every ${this.settings().pollFallbackSeconds} s.`),
        ];
    }
  }

  private renderPicker(): void {
    const view = this.feed.view;
    const list = this.feed.sessions;
    const sessions = list?.sessions ?? [];
    this.pickerLabel.hidden = sessions.length < 2 || view.kind !== "card";
    // The current session first, alone; the earlier ones apart, newest first, so a proposal
    // left waiting in one of them does not read as asking now.
    const current = sessions.filter((s) => s.session_id === list?.current);
    const earlier = sessions.filter((s) => s.session_id !== list?.current).reverse();
    const labels = sessionLabels(sessions);
    const option = (summary: SessionSummary, isCurrent: boolean) => {
      const state = summary.pending_proposal_hash
        ? isCurrent
          ? "waiting for you"
          : "a proposal left waiting"
        : summary.mode === "plan"
          ? "plan mode"
          : null;
      const text = [labels.get(summary.session_id), state].filter(Boolean).join(" · ");
      const node = h("option", null, text);
      node.value = summary.session_id;
      // The whole label on hover, where a narrow panel cuts it.
      node.title = `${text} (session ${summary.session_id}${summary.created_at ? `, started ${new Date(summary.created_at).toLocaleString()}` : ""})`;
      return node;
    };
    const groups: HTMLElement[] = [];
    if (current.length) groups.push(group("Current session", current.map((s) => option(s, true))));
    if (earlier.length) groups.push(group("Earlier sessions", earlier.map((s) => option(s, false))));
    this.sessionPicker.replaceChildren(...groups);
    if (view.kind === "card") this.sessionPicker.value = view.data.snapshot.session_id;
  }

  /** The session shown, when it is not the notebook's current one. */
  private earlierShown(): SessionSummary | null {
    const view = this.feed.view;
    const list = this.feed.sessions;
    if (view.kind !== "card" || !list?.current) return null;
    const id = view.data.snapshot.session_id;
    if (id === list.current) return null;
    return list.sessions.find((s) => s.session_id === id) ?? { session_id: id, cursor: 0, mode: "default" };
  }

  /** Above an earlier session's card: it is not the one asking now. */
  private earlierNotice(earlier: SessionSummary): HTMLElement {
    const back = h("button", "jp-plans-panel-back", "Show the current session");
    back.type = "button";
    back.addEventListener("click", () => {
      const current = this.feed.sessions?.current;
      if (current) this.feed.pickSession(current);
    });
    const words = earlier.pending_proposal_hash
      ? "An earlier session: its proposal was left waiting; the notebook's current session is another."
      : "An earlier session; the notebook's current session is another.";
    return h("div", { class: "jp-plans-panel-earlier", attrs: { role: "note" } }, h("span", null, words), back);
  }

  private renderStatus(): void {
    const shown = this.feed.view.kind === "card";
    this.status.hidden = !shown;
    this.status.classList.toggle("jp-plans-panel-live", this.feed.live);
    if (!shown) return;
    const seconds = this.settings().pollFallbackSeconds;
    const readError = this.feed.readError;
    if (readError !== null) {
      this.status.textContent = "not up to date";
      this.status.title = `The last read failed: ${readError}. Trying again every ${seconds} s.`;
    } else if (this.feed.live) {
      this.status.textContent = "live";
      this.status.title = "Changes from any process appear here as they are written";
    } else {
      this.status.textContent = "reconnecting";
      this.status.title = `The live stream is down; reading the plan every ${seconds} s until it is back`;
    }
  }
}

/**
 * Each session as people think of it: when it started, then its task (else its id). The time
 * comes first, so a narrow panel cuts the task, not what tells two tasks apart; sessions whose
 * labels would read alike (the same task begun in the same minute) show the second they
 * began, and where even that is the same, their ids.
 */
export function sessionLabels(
  summaries: readonly SessionSummary[],
  now: Date = new Date(),
): Map<string, string> {
  const label = (summary: SessionSummary, seconds: boolean) => {
    const name = summary.task ?? `session ${summary.session_id}`;
    const when = startedWords(summary, now, seconds);
    return when ? `${when} · ${name}` : name;
  };
  const alike = (labels: Map<string, string>) => {
    const counts = new Map<string, number>();
    for (const text of labels.values()) counts.set(text, (counts.get(text) ?? 0) + 1);
    return (id: string) => (counts.get(labels.get(id) ?? "") ?? 0) > 1;
  };
  const labels = new Map(summaries.map((s) => [s.session_id, label(s, false)]));
  const minuteAlike = alike(labels);
  for (const s of summaries) if (minuteAlike(s.session_id)) labels.set(s.session_id, label(s, true));
  const secondAlike = alike(labels);
  for (const s of summaries) {
    if (secondAlike(s.session_id)) labels.set(s.session_id, `${labels.get(s.session_id)} (${s.session_id})`);
  }
  return labels;
}

function startedWords(summary: SessionSummary, now: Date, seconds: boolean): string | null {
  if (!summary.created_at) return null;
  const started = new Date(summary.created_at);
  if (Number.isNaN(started.getTime())) return null;
  const time = started.toLocaleTimeString(undefined, {
    hour: "2-digit",
    minute: "2-digit",
    ...(seconds ? { second: "2-digit" } : {}),
  });
  if (started.toDateString() === now.toDateString()) return `today ${time}`;
  return `${started.toLocaleDateString(undefined, { day: "numeric", month: "short" })}, ${time}`;
}

function group(label: string, options: HTMLElement[]): HTMLElement {
  return h("optgroup", { attrs: { label } }, ...options);
}
