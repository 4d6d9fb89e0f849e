/**
 * The anywidget front end of `jupyter_plans.PlanCard`: renders the synced traits with the
 * card and sends the person's decisions and answers back as custom messages.
 */

import type { RenderProps } from "@anywidget/types";
import { renderCard } from "./card";
import type { CardActions, CardModel } from "./types";

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
  const draw = () => {
    scheduled = false;
    if (disposed) return;
    renderCard(
      el,
      {
        snapshot: model.get("snapshot"),
        notebook: model.get("notebook") ?? null,
        changes: model.get("changes") ?? null,
        question: model.get("question") ?? null,
        review: model.get("review") ?? null,
      },
      actions,
      model.get("error") ?? null,
    );
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
