/**
 * The finished state: the agent's final review of every objective (finish_plan), shown while
 * no later change has reopened the plan. Its words are the agent's, shown as text.
 */

import type { FinalReview } from "../types";
import { cellNote, citedText } from "./cells";
import type { CardContext } from "./context";
import { h, inlineText, plural } from "./dom";
import { icon } from "./icons";
import { collapsible } from "./sections";

/** The review, when it is of the plan the card shows (a later revision reopened it). */
export function currentReview(ctx: CardContext): FinalReview | null {
  const review = ctx.data.review ?? null;
  if (!review || !ctx.plan || review.revision !== ctx.plan.revision) return null;
  return review;
}

export function finishedBanner(ctx: CardContext, review: FinalReview): HTMLElement {
  const items = h(
    "ul",
    "jp-plans-list jp-plans-review",
    ...review.review.map((item, index) =>
      h(
        "li",
        null,
        h("strong", "jp-plans-review-objective", item.objective),
        h("span", "jp-plans-muted", " → "),
        inlineText(item.outcome),
        h(
          "div",
          "jp-plans-review-evidence",
          h("span", "jp-plans-meta-label", "evidence: "),
          citedText(ctx, `review:${index}`, item.evidence, []),
        ),
        cellNote(ctx, `review:${index}`),
      ),
    ),
  );
  const count = review.review.length;
  return h(
    "section",
    { class: "jp-plans-banner jp-plans-banner-finished", attrs: { "aria-label": "Plan finished" } },
    h(
      "div",
      "jp-plans-banner-title",
      icon("check"),
      h("strong", null, "Finished"),
      h(
        "span",
        "jp-plans-muted",
        count ? `· the agent reviewed ${plural(count, "objective", "objectives")}` : "· the plan has no objectives to review",
      ),
    ),
    count ? collapsible(ctx, "review", "Final review", count, items) : null,
  );
}
