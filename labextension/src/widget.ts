/**
 * The anywidget front end of `jupyter_plans.PlanCard`: renders the synced traits with the
 * card and sends the person's decisions and answers back as custom messages, and tells the
 * kernel which proposal this card has shown.
 */

import type { RenderProps } from "@anywidget/types";
import { renderCard } from "./card";
import type { CardActions, Changes, FinalReview, Snapshot } from "./types";

/** The synced traits of the Python `PlanCard` widget; EVENTS below names each of them. */
export type CardModel = {
  snapshot: Snapshot;
  notebook: string | null;
  changes: Changes | null;
  question: string | null;
  review: FinalReview | null;
  error: string | null;
};

const EVENTS = "change:snapshot change:changes change:question change:review change:error change:notebook";

function render({ model, el }: RenderProps<CardModel>): () => void {
  const actions: CardActions = {
    approve: (hash) => model.send({ action: "approve", hash }),
    revise: (notes) => model.send({ action: "revise", notes }),
    off: () => model.send({ action: "off" }),
    edit: (change) => model.send({ action: "edit", change }),
    answer: (text) => model.send({ action: "answer", text }),
  };
  // Traits synced in one message fire one event each: draw once for all of them.
  let scheduled = false;
  let disposed = false;
  /** The last waiting proposal reported as shown, so each is reported once. */
  let reported: string | null = null;
  const draw = () => {
    scheduled = false;
    if (disposed) return;
    const snapshot = model.get("snapshot");
    renderCard(
      el,
      {
        snapshot,
        notebook: model.get("notebook") ?? null,
        changes: model.get("changes") ?? null,
        question: model.get("question") ?? null,
        review: model.get("review") ?? null,
      },
      actions,
      model.get("error") ?? null,
    );
    // Only a live card sends this: it lets `%plan approve` without a hash bind the proposal
    // this kernel showed. The saved card and the Plan panel show, but cannot tell a kernel.
    const hash = snapshot?.pending_proposal_hash ?? null;
    if (hash !== null && hash !== reported) {
      reported = hash;
      model.send({ action: "seen", hash });
    }
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    queueMicrotask(draw);
  };
  model.on(EVENTS, schedule);
  draw();
  return () => {
    disposed = true;
    model.off(EVENTS, schedule);
    el.replaceChildren();
  };
}

export default { render };
