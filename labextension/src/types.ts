/**
 * The data contract between Python and the card: the snapshot JSON of DESIGN.md section 5,
 * the change summary of a re-proposal, and the actions a live card may take.
 */

export type StepStatus = "pending" | "in_progress" | "completed";

export interface Step {
  id: string;
  description: string;
  status: StepStatus;
  acceptance: string | null;
  depends_on: string[];
  evidence: string | null;
  /**
   * One Python expression the notebook runs once the step is completed (DESIGN section 17);
   * null when the step has none. Absent from cards saved before checks existed.
   */
  check?: string | null;
}

export interface Phase {
  title: string | null;
  steps: Step[];
}

export interface Plan {
  revision: number;
  turn_id: string | null;
  call_id: string | null;
  explanation: string | null;
  findings: string[];
  objectives: string[];
  phases: Phase[];
  /** The steps of every phase, flattened in order. */
  steps: Step[];
}

export interface Decision {
  title: string;
  rationale: string;
  sources: string[];
  /**
   * The person who recorded it, and where (DESIGN section 12); null for an agent's. Absent from
   * cards saved before it was kept.
   */
  by?: DecidedBy | null;
}

export type Mode = "default" | "plan";

/** The latest run of a notebook cell that did a step (DESIGN section 13). */
export interface CellRun {
  /** The nbformat cell id the notebook front end sent with the execute request. */
  cell_id: string;
  execution_count: number | null;
  ok: boolean;
  /** The cell ran again with other code after its step was completed. */
  changed: boolean;
}

/** A person's comment on a step, or on the plan as a whole (DESIGN section 14). */
export interface PlanComment {
  /** c1, c2, ... per session. */
  id: string;
  /** The step it is on; null for the plan as a whole. */
  step_id: string | null;
  /** The step's description when the comment was made. */
  anchor: string | null;
  /** The person's words. */
  text: string;
  by: DecidedBy | null;
  status: "open" | "addressed" | "resolved";
  /** The agent's note once addressed: model-authored, shown as text. */
  reply: string | null;
}

export type CheckStatus = "passed" | "failed" | "not_run" | "unapproved";

/**
 * A step's check (DESIGN section 17): its status, and its latest run since the step was last
 * completed. `unapproved`: not in the plan the person approved; it never runs by itself.
 */
export interface CheckState {
  status: CheckStatus;
  /** The value's repr, cut to 200 characters. */
  value: string | null;
  /** The exception's type and first line, cut to 200 characters. */
  error: string | null;
  /** The execution count of the cell it ran in. */
  execution_count: number | null;
  /** The seq of its step_checked event. */
  seq: number | null;
}

export interface Snapshot {
  session_id: string;
  cursor: number;
  mode: Mode;
  pending_proposal_hash: string | null;
  approved_proposal_hash: string | null;
  plan: Plan | null;
  decisions: Decision[];
  /**
   * Per step id, the latest run of each cell that did it (at most 16, the most recent).
   * Absent from cards saved before cells were linked.
   */
  cells?: Record<string, CellRun[]>;
  /**
   * The person's comments: every one not resolved and the 16 most recently resolved. Absent
   * from cards saved before comments existed.
   */
  comments?: PlanComment[];
  /**
   * Per step with a check, in the plan's order: its status and latest run. Absent from cards
   * saved before checks existed.
   */
  checks?: Record<string, CheckState>;
  /**
   * The mode id the bridged ACP agent last announced (DESIGN section 10); null with no bridge.
   * Absent from cards saved before it was kept.
   */
  agent_mode?: string | null;
}

/** What the bridge keeps of the ACP agent it runs (the agent's status), for the card. */
export interface AgentStatus {
  /** The agent's name for people ("Claude Code"). */
  agent: string;
  /** The mode id it last announced. */
  mode: string | null;
  /** The agent's own words for that mode (its name and description). */
  mode_words?: string | null;
  /** What edits do in that mode ("edits no longer ask"). */
  edits?: string | null;
  /** Whether it asks before its edits there; null when unknown. */
  asks?: boolean | null;
  /** Whether a prompt of its client runs (else it waits for the person's next message). */
  working: boolean;
  /** Why the bridge ended its last turn (its refusals' follow-ups stopped), if it did. */
  ended?: string | null;
}

/**
 * In plan mode with no proposal waiting, what the agent is doing: researching ("working"),
 * waiting for the person's next message in the chat ("chat"), or no agent is engaged yet
 * ("none").
 */
export type Activity = "working" | "chat" | "none";

export interface Reworded {
  id: string;
  before: string;
  after: string;
}

/** What changed since the proposal the person last saw. */
export interface Changes {
  since_revision: number;
  added: Step[];
  removed: Step[];
  reworded: Reworded[];
}

/** One objective of the plan, as the agent reviewed it with finish_plan. */
export interface ReviewItem {
  objective: string;
  outcome: string;
  evidence: string;
}

/** The accepted final review: while it stands, the plan at `revision` is finished. */
export interface FinalReview {
  revision: number;
  review: ReviewItem[];
}

/** The person behind a decision and where it was made (DESIGN section 12). */
export interface DecidedBy {
  name: string | null;
  via: string;
  /** The person's display name, shown beside the name where it says another. */
  display?: string | null;
}

export interface CardData {
  snapshot: Snapshot;
  notebook: string | null;
  changes: Changes | null;
  /**
   * The question the agent asked with ask_user, while it waits for the person's answer.
   * Absent from cards saved before questions existed.
   */
  question?: string | null;
  /**
   * The notes of the person's last request for changes, until the agent's next proposal.
   * Absent from cards saved before notes were kept.
   */
  notes?: string | null;
  /** The final review while the plan is finished; absent from cards saved before it existed. */
  review?: FinalReview | null;
  /** Who approved the approved proposal, and where; absent from cards saved before it. */
  approved_by?: DecidedBy | null;
  /**
   * While an ACP agent's proposal waits (through the bridge): `approve`, the words of the
   * agent's option that approving answers it with. Absent from cards saved before it.
   */
  bridged?: { approve: string | null } | null;
  /**
   * When an agent the plan's hooks are registered for would not run its guard (Codex, before
   * the hooks are trusted), or a bridged agent approves itself: plan mode is not enforced
   * there. Its first line is the headline; the rest says why and what fixes it, with commands
   * and paths in `backticks`. Live cards and the panel only.
   */
  guard_warning?: string | null;
  /** The bridged ACP agent, while a bridge runs it. Live cards and the panel only. */
  agent?: AgentStatus | null;
  /** What the agent is doing while plan mode waits for a proposal. Live cards and the panel. */
  activity?: Activity | null;
  /**
   * In plan mode (or while a proposal waits): the guards heard from and when, and those
   * installed for this plan that were not heard from since plan mode began (DESIGN section
   * 15). Live cards and the panel only: a saved card does not keep it.
   */
  guards?: Guards | null;
  /**
   * How many sessions the plan file holds: the header names the session only among others.
   * Live cards and the panel; absent from saved cards.
   */
  sessions?: number;
}

/** A guard's heartbeat: an agent's hook or the ACP bridge's guard ran at `at` (ms). */
export interface GuardSeen {
  agent: string;
  agent_version: string | null;
  /** Where it ran: the hook's event, or "acp-bridge". */
  point: string;
  at: number;
}

/** Hooks installed for this plan whose agent was not heard from since plan mode began. */
export interface GuardSilent {
  agent: string;
  installed_at: number;
  /** The command that says why the agent does not run them. */
  doctor: string;
}

export interface Guards {
  /** The writer's clock when the data was made (ms): ages are told on that clock. */
  now: number;
  /** When plan mode began (ms); null while only a proposal waits. */
  since: number | null;
  seen: GuardSeen[];
  silent: GuardSilent[];
}

/** A person's edit of the plan: a whole new list of phases, checked against a revision. */
export interface PlanEdit {
  expected_revision: number;
  phases: Phase[];
}

/** Absent for static renderings (saved notebooks): the card then shows no action buttons. */
export interface CardActions {
  approve(hash: string): void;
  /** "Request changes": the notes become the person's message to the agent. */
  revise(notes: string): void;
  /** "Leave plan mode". */
  off(): void;
  /** Absent where edits cannot be saved (a card whose kernel is gone): no Edit button. */
  edit?(change: PlanEdit): void;
  /**
   * "Answer": the text becomes the person's message to the agent and closes its question.
   * Absent where answers cannot be sent (the Plan panel): the question is shown, no field.
   */
  answer?(text: string): void;
  /**
   * The person's comments: a new one on a step (null: the plan as a whole), resolving or
   * reopening one. Absent where comments cannot be sent: no Comment, Resolve or Reopen.
   */
  comment?(stepId: string | null, text: string): void;
  resolve?(commentId: string): void;
  reopen?(commentId: string): void;
  /** Run a step's check now, in the notebook's kernel. Absent where there is no kernel. */
  check?(stepId: string): void;
}

/** One control beside a notice: go to the live card, show the plan as it is now, go back. */
export interface NoticeControl {
  label: string;
  onClick(): void;
}

/**
 * What the surface around the card says about it, in one line above its header: a saved
 * output's revision, the plan as it is now, a superseded card, a card whose kernel is gone.
 */
export interface CardNotice {
  kind: "saved" | "current" | "superseded" | "kernel-gone" | "server";
  text: string;
  control?: NoticeControl;
}

export interface CardFrame {
  notice?: CardNotice | null;
  /** The card keeps what it shows and cannot act: its buttons are shown, disabled. */
  frozen?: boolean;
  /** The widget model id of a live card, on the card's root, so another card can find it. */
  modelId?: string | null;
  /** Where the agent's question is answered, when this surface cannot send an answer. */
  answerHint?: string;
  /** The widget model id of the newer card that took over from this one. */
  supersededBy?: string | null;
}

/**
 * What the live card tells the page each time it draws (a bubbling DOM event on its element,
 * so the JupyterLab renderer around it learns what it showed without reaching into the widget
 * manager): when its kernel goes, the renderer carries on from there.
 */
export interface CardShownDetail {
  data: CardData;
  /** The model id of the newer card of the same session, once this one is superseded. */
  supersededBy: string | null;
}

export const CARD_SHOWN_EVENT = "jp-plans-card-shown";

/** Where a card's link to a cell led: the cell shown, gone from its notebook, or no notebook open. */
export type GoToCellResult = "shown" | "missing" | "closed";

/**
 * What a card asks of the page when a link to a cell is followed (a bubbling DOM event on the
 * link, so the anywidget bundle needs no JupyterLab): the surface around the card that knows its
 * notebook answers by setting `result`, at once. Left null, nothing here can go to cells.
 */
export interface GoToCellDetail {
  cellId: string;
  result: GoToCellResult | null;
}

export const GO_TO_CELL_EVENT = "jp-plans-go-to-cell";
