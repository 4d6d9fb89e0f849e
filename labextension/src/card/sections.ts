/** Progress, the collapsible lists (findings, objectives, decisions) and the footer. */

import type { Decision, Plan } from "../types";
import type { CardContext } from "./context";
import { button, h, inlineText, plural } from "./dom";
import { ALWAYS_ATTR } from "./frame";
import { icon } from "./icons";

export function progress(plan: Plan): HTMLElement {
  const total = plan.steps.length;
  const done = plan.steps.filter((step) => step.status === "completed").length;
  const percent = total ? Math.round((done / total) * 100) : 0;
  const words = `${done} of ${plural(total, "step", "steps")} marked complete by the agent`;
  const fill = h("div", "jp-plans-progress-fill");
  fill.style.width = `${percent}%`;
  return h(
    "div",
    "jp-plans-progress",
    h(
      "div",
      "jp-plans-progress-label",
      h("span", null, h("strong", null, `${done} of ${total}`), ` ${total === 1 ? "step" : "steps"} marked complete by the agent`),
      h("span", { class: "jp-plans-progress-percent", attrs: { "aria-hidden": "true" } }, `${percent}%`),
    ),
    h(
      "div",
      {
        class: "jp-plans-progress-track",
        attrs: {
          role: "progressbar",
          "aria-label": "Steps marked complete by the agent",
          "aria-valuemin": 0,
          "aria-valuemax": total,
          "aria-valuenow": done,
          "aria-valuetext": words,
        },
      },
      fill,
    ),
  );
}

/** A titled block the person can fold away; the choice survives re-renders. */
export function collapsible(ctx: CardContext, key: string, title: string, count: number, body: HTMLElement): HTMLElement {
  const { state } = ctx;
  const open = !state.collapsed.has(key);
  const bodyId = `${state.id}-${key}`;
  body.id = bodyId;
  body.classList.add("jp-plans-section-body");
  body.hidden = !open;
  return h(
    "section",
    `jp-plans-section jp-plans-section-${key}`,
    button(
      {
        class: "jp-plans-section-toggle",
        key: `section:${key}`,
        attrs: { "aria-expanded": String(open), "aria-controls": bodyId, [ALWAYS_ATTR]: true },
        onClick: () => {
          if (open) state.collapsed.add(key);
          else state.collapsed.delete(key);
          ctx.rerender();
        },
      },
      icon("chevron"),
      h("span", "jp-plans-section-title", title),
      h("span", "jp-plans-section-count", `(${count})`),
    ),
    body,
  );
}

export function textList(items: string[]): HTMLElement {
  return h("ul", "jp-plans-list", ...items.map((item) => h("li", null, inlineText(item))));
}

export function decisionList(decisions: Decision[]): HTMLElement {
  return h(
    "ul",
    "jp-plans-list jp-plans-decisions",
    ...decisions.map((decision) =>
      h(
        "li",
        null,
        h("strong", null, decision.title),
        h("span", "jp-plans-muted", " — ", inlineText(decision.rationale)),
        decision.sources.length
          ? h("div", "jp-plans-sources", h("span", "jp-plans-meta-label", "sources: "), decision.sources.join(" · "))
          : null,
      ),
    ),
  );
}

export function footer(): HTMLElement {
  const legend = h(
    "span",
    { class: "jp-plans-legend", attrs: { "aria-label": "Step status legend" } },
    ...(["pending", "in_progress", "completed"] as const).map((status) =>
      h("span", `jp-plans-legend-item jp-plans-status-${status}`, icon(status), status === "in_progress" ? "in progress" : status),
    ),
  );
  return h(
    "div",
    "jp-plans-footer",
    h(
      "span",
      "jp-plans-footer-note",
      icon("info"),
      "Steps are marked complete by the agent; a step is checked only where its check passed in the notebook.",
    ),
    legend,
  );
}
