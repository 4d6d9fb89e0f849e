/**
 * What shows that plan mode holds outside the kernel (DESIGN section 15): in plan mode, each
 * guard heard from and how long ago ("guard: Claude Code 2.1.332, 4 s ago"), kept current by
 * one timer for the page without a new drawing; and, plainly, each guard installed for this
 * plan that was not heard from since plan mode began. Names and versions go in as text.
 */

import type { CardData, GuardSeen, Guards, GuardSilent } from "../types";
import { h } from "./dom";
import { icon } from "./icons";

const AT_ATTR = "data-jp-plans-seen-at";
const TICK_MS = 1000;
/** Per data received: the browser's clock minus the clock that wrote its times. */
const offsets = new WeakMap<Guards, number>();
let ticking: ReturnType<typeof setInterval> | null = null;

/** "4 s ago", "3 min ago", "2 h ago", "5 d ago". */
export function ago(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.floor(hours / 24)} d ago`;
}

function offsetOf(guards: Guards): number {
  let found = offsets.get(guards);
  if (found === undefined) {
    found = Date.now() - guards.now;
    offsets.set(guards, found);
  }
  return found;
}

function seenLine(seen: GuardSeen, offset: number): HTMLElement {
  const name = [seen.agent, seen.agent_version].filter(Boolean).join(" ");
  const via = seen.point === "acp-bridge" ? " (ACP bridge)" : "";
  const when = seen.at + offset; // on the browser's clock
  return h(
    "div",
    "jp-plans-guard-seen",
    icon("check"),
    h(
      "span",
      "jp-plans-guard-seen-text",
      `guard: ${name}${via}, `,
      h("span", { class: "jp-plans-guard-age", attrs: { [AT_ATTR]: when } }, ago(Date.now() - when)),
    ),
  );
}

function silentLine(silent: GuardSilent, since: number | null): HTMLElement {
  const when = since === null ? "" : " since plan mode began";
  return h(
    "div",
    { class: "jp-plans-guard-silent", attrs: { role: "note" } },
    icon("alert"),
    h(
      "span",
      "jp-plans-guard-silent-text",
      h("strong", null, `${silent.agent}'s guard has not been heard from${when}.`),
      ` Its hooks were installed for this notebook, yet nothing shows that ${silent.agent} runs ` +
        `them: plan mode may not hold there. `,
      h("code", null, silent.doctor),
      " says why.",
    ),
  );
}

/** The card's lines about its guards, or null where there is nothing to say. */
export function guardLines(data: CardData, frozen: boolean): HTMLElement | null {
  const guards = data.guards;
  const holding = data.snapshot.mode === "plan" || data.snapshot.pending_proposal_hash !== null;
  if (!guards || frozen || !holding || (!guards.seen.length && !guards.silent.length)) return null;
  const offset = offsetOf(guards);
  const box = h("div", "jp-plans-guards");
  for (const silent of guards.silent) box.append(silentLine(silent, guards.since));
  for (const seen of guards.seen) box.append(seenLine(seen, offset));
  keepTicking();
  return box;
}

/** One timer for the page: every age shown is told again each second, while any is shown. */
function keepTicking(): void {
  if (ticking !== null) return;
  ticking = setInterval(() => {
    const shown = document.querySelectorAll<HTMLElement>(`[${AT_ATTR}]`);
    if (!shown.length && ticking !== null) {
      clearInterval(ticking);
      ticking = null;
    }
    const now = Date.now();
    shown.forEach((element) => {
      const text = ago(now - Number(element.getAttribute(AT_ATTR)));
      if (element.textContent !== text) element.textContent = text;
    });
  }, TICK_MS);
}
