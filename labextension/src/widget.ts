/**
 * The anywidget front end of `jupyter_plans.PlanCard`: renders the synced traits with the
 * card, sends the person's decisions and answers back as custom messages, and tells the
 * kernel which proposal this card has shown. A card superseded by a newer one of its session
 * keeps what it showed; a card whose kernel is gone says so and stops acting. It also tells
 * the page what it showed (CARD_SHOWN_EVENT), for the JupyterLab renderer around it.
 */

import type { RenderProps } from "@anywidget/types";
import { CARD_SHOWN_EVENT, KERNEL_GONE_NOTICE, renderCard, supersededNotice } from "./card";
import { pageUser } from "./identity";
import type {
  Activity,
  AgentStatus,
  CardActions,
  CardData,
  CardFrame,
  CardShownDetail,
  Changes,
  DecidedBy,
  FinalReview,
  Guards,
  Snapshot,
} from "./types";

/** The synced traits of the Python `PlanCard` widget; EVENTS below names each of them. */
export type CardModel = {
  snapshot: Snapshot;
  notebook: string | null;
  changes: Changes | null;
  question: string | null;
  notes: string | null;
  review: FinalReview | null;
  approved_by: DecidedBy | null;
  bridged: { approve: string | null } | null;
  error: string | null;
  superseded_by: string | null;
  /** Why the card stopped: the extension that kept it was unloaded. */
  ended: string | null;
  guard_warning: string | null;
  guards: Guards | null;
  agent: AgentStatus | null;
  activity: Activity | null;
  sessions: number;
};

const EVENTS = [
  "snapshot",
  "changes",
  "question",
  "notes",
  "review",
  "approved_by",
  "bridged",
  "error",
  "notebook",
  "superseded_by",
  "ended",
  "guard_warning",
  "guards",
  "agent",
  "activity",
  "sessions",
].map((name) => `change:${name}`).join(" ");

type Model = RenderProps<CardModel>["model"];

/** What the card shows, from the synced traits (absent ones as a saved card has them). */
function cardData(model: Model): CardData {
  return {
    snapshot: model.get("snapshot"),
    notebook: model.get("notebook") ?? null,
    changes: model.get("changes") ?? null,
    question: model.get("question") ?? null,
    notes: model.get("notes") ?? null,
    review: model.get("review") ?? null,
    approved_by: model.get("approved_by") ?? null,
    bridged: model.get("bridged") ?? null,
    guard_warning: model.get("guard_warning") ?? null,
    guards: model.get("guards") ?? null,
    agent: model.get("agent") ?? null,
    activity: model.get("activity") ?? null,
    sessions: model.get("sessions") ?? 1,
  };
}

/** Each of the person's acts, as the one-off message the kernel's card answers. */
function cardActions(act: (content: Record<string, unknown>) => void): CardActions {
  return {
    approve: (hash) => act({ action: "approve", hash }),
    revise: (notes) => act({ action: "revise", notes }),
    off: () => act({ action: "off" }),
    edit: (change) => act({ action: "edit", change }),
    answer: (text) => act({ action: "answer", text }),
    comment: (stepId, text) => act({ action: "comment", step_id: stepId, text }),
    resolve: (commentId) => act({ action: "resolve", comment_id: commentId }),
    reopen: (commentId) => act({ action: "reopen", comment_id: commentId }),
    check: (stepId) => act({ action: "check", step_id: stepId }),
  };
}

/** A card that no longer acts says why: superseded, its kernel gone, its extension unloaded. */
function frameOf(model: Model, kernelGone: boolean): CardFrame {
  const supersededBy = model.get("superseded_by") ?? null;
  const ended = model.get("ended") ?? null;
  if (supersededBy) return { frozen: true, notice: supersededNotice(supersededBy), supersededBy };
  if (kernelGone) return { frozen: true, notice: KERNEL_GONE_NOTICE };
  if (ended) return { frozen: true, notice: { kind: "kernel-gone", text: ended } };
  return {};
}

function render({ model, el }: RenderProps<CardModel>): () => void {
  /** Set once a message could not be sent: the kernel restarted or shut down. */
  let kernelGone = false;
  const send = (content: Record<string, unknown>) => {
    if (kernelGone) return;
    try {
      model.send(content);
    } catch (error) {
      // The comm died with its kernel: say so on the card rather than throw from a click.
      console.warn("jupyter-plans: the card's kernel is gone", error);
      kernelGone = true;
      schedule();
    }
  };
  // A person's act goes with who the page says they are (the kernel's person where it has
  // none); the name is asked for once per page, so every act but the first is sent at once.
  const user = pageUser();
  const actions = cardActions((content) => {
    void user.then((by) => send(by === null ? content : { ...content, by }));
  });
  // Traits synced in one message fire one event each: draw once for all of them.
  let scheduled = false;
  let disposed = false;
  /** The last waiting proposal reported as shown, so each is reported once. */
  let reported: string | null = null;
  let shown: CardShownDetail | null = null;
  const announce = () => {
    if (shown && !disposed) el.dispatchEvent(new CustomEvent(CARD_SHOWN_EVENT, { bubbles: true, detail: shown }));
  };
  const draw = () => {
    scheduled = false;
    if (disposed) return;
    const data = cardData(model);
    const frame = frameOf(model, kernelGone);
    renderCard(el, data, actions, model.get("error") ?? null, frame);
    shown = { data, supersededBy: frame.supersededBy ?? null };
    announce();
    // Only the live card sends this: it lets `%plan approve` without a hash bind the proposal
    // this kernel showed. Saved and superseded cards, and the Plan panel, show but cannot tell.
    const hash = data.snapshot?.pending_proposal_hash ?? null;
    if (hash !== null && hash !== reported && !frame.frozen) {
      reported = hash;
      send({ action: "seen", hash });
    }
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    queueMicrotask(draw);
  };
  model.on(EVENTS, schedule);
  draw();
  // The first drawing happens before the view is in the page: say it again once it is.
  const again = setTimeout(announce, 0);
  return () => {
    clearTimeout(again);
    disposed = true;
    model.off(EVENTS, schedule);
    el.replaceChildren();
  };
}

export default { render };
