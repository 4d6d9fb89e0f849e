/**
 * What the surface says around the card: the one-line notice above its header (saved, the
 * plan as it is now, superseded, kernel gone) with its one control, a frozen card's disabled
 * buttons, and finding another card of the page by its widget model id.
 */

import type { CardNotice, NoticeControl } from "../types";
import { button, h } from "./dom";
import { icon } from "./icons";

/** On a card's root (and the JupyterLab output around it): the widget model id it shows. */
export const MODEL_ID_ATTR = "data-jp-plans-model-id";
/** On a superseded card's root: the model id of the card that took over from it. */
export const SUPERSEDED_BY_ATTR = "data-jp-plans-superseded-by";
/** Marks the controls a frozen card keeps: folding a section, the notice's own control. */
export const ALWAYS_ATTR = "data-jp-plans-always";

const NOTICE_ICONS: Record<CardNotice["kind"], Parameters<typeof icon>[0]> = {
  saved: "info",
  current: "search",
  superseded: "info",
  "kernel-gone": "alert",
  server: "info",
};

export function noticeBar(notice: CardNotice): HTMLElement {
  const bar = h(
    "div",
    { class: `jp-plans-notice jp-plans-notice-${notice.kind}`, attrs: { role: "note" } },
    icon(NOTICE_ICONS[notice.kind]),
    h("span", "jp-plans-notice-text", notice.text),
  );
  if (notice.control) bar.append(noticeButton(notice.control));
  return bar;
}

function noticeButton(control: NoticeControl): HTMLButtonElement {
  return button(
    {
      class: "jp-plans-button-link jp-plans-notice-control",
      key: "notice-control",
      attrs: { [ALWAYS_ATTR]: true },
      onClick: () => control.onClick(),
    },
    control.label,
  );
}

/** A frozen card keeps what it shows: every control but the marked ones is disabled. */
export function freeze(card: HTMLElement): void {
  card.classList.add("jp-plans-frozen");
  for (const control of card.querySelectorAll<HTMLButtonElement | HTMLInputElement | HTMLTextAreaElement>(
    "button, input, textarea, select",
  )) {
    if (!control.hasAttribute(ALWAYS_ATTR)) control.disabled = true;
  }
}

/** The element of the page that shows the card of `modelId`, if it is in the page. */
function findCard(modelId: string): HTMLElement | null {
  // Compared as attribute values, not put into a selector.
  return (
    Array.from(document.querySelectorAll<HTMLElement>(`[${MODEL_ID_ATTR}]`)).find(
      (element) => element.getAttribute(MODEL_ID_ATTR) === modelId,
    ) ?? null
  );
}

/** The card of `modelId` in the page (inside the output that carries the id, if it is one). */
function cardOf(modelId: string): HTMLElement | null {
  const target = findCard(modelId);
  if (!target || target.classList.contains("jp-plans-card")) return target;
  return target.querySelector<HTMLElement>(".jp-plans-card") ?? target;
}

/**
 * Scrolls the card of `modelId` into view and moves focus to it; false when it is not here.
 * A card that was itself taken over leads on to the one that took over from it: the live one.
 */
export function scrollToCard(modelId: string): boolean {
  let card = cardOf(modelId);
  const seen = new Set([modelId]);
  while (card) {
    const next = card.getAttribute(SUPERSEDED_BY_ATTR);
    if (!next || seen.has(next)) break;
    seen.add(next);
    const newer = cardOf(next);
    if (!newer) break;
    card = newer;
  }
  if (!card) return false;
  card.scrollIntoView({ block: "start", behavior: "smooth" });
  card.focus({ preventScroll: true });
  return true;
}

/** A card that a newer card of its session took over from: it keeps what it showed. */
export function supersededNotice(newer: string): CardNotice {
  return {
    kind: "superseded",
    text: "Superseded by a newer card of this plan",
    control: {
      label: "Go to the live card",
      onClick: () => {
        if (!scrollToCard(newer)) console.warn("jupyter-plans: the newer card of this plan is not in this page");
      },
    },
  };
}

/** A card whose kernel is gone, where nothing else can act for it. */
export const KERNEL_GONE_NOTICE: CardNotice = {
  kind: "kernel-gone",
  text: "This card's kernel is gone (restarted or shut down), so its buttons no longer act; run %plan for a live card.",
};
