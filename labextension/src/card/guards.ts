/**
 * What shows that plan mode holds outside the kernel (DESIGN section 15): a warning that it is
 * not enforced somewhere (Codex before its hooks are trusted, a bridged agent that approves
 * itself); in plan mode, plainly, each guard installed for this plan that was not heard from
 * since plan mode began; and each guard heard from and how long ago ("guard: Claude Code
 * 2.1.332, 4 s ago"), kept current by one timer for the page without a new drawing. A warning
 * is one line, its headline: why and what fixes it wait behind a disclosure, so the decision
 * above stays in view. Names, versions and commands go in as text.
 */

import type { CardData, GuardSeen, Guards, GuardSilent } from "../types";
import type { CardContext } from "./context";
import type { Child } from "./dom";
import { codeText, h, inlineText } from "./dom";
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

/**
 * One warning: its headline on one line, the rest behind a disclosure that keeps its state
 * across drawings (keyed, so focus on it comes back too).
 */
function folded(ctx: CardContext, key: string, kind: string, headline: Child, detail: Child[]): HTMLElement {
  const { state } = ctx;
  const summary = h(
    "summary",
    { class: "jp-plans-guard-summary", key: `guard:${key}` },
    icon("alert"),
    h("span", `jp-plans-guard-headline jp-plans-${kind}-text`, headline),
    icon("chevron"),
  );
  const details = h("details", "jp-plans-guard-details", summary, h("div", "jp-plans-guard-detail", ...detail));
  details.open = state.expanded.has(key);
  details.addEventListener("toggle", () => {
    if (details.open) state.expanded.add(key);
    else state.expanded.delete(key);
  });
  // A note, as the rest of the card's warnings; the disclosure inside keeps its own role.
  return h("div", { class: `jp-plans-guard jp-plans-${kind}`, attrs: { role: "note" } }, details);
}

/** A warning from the server or the kernel: its first line the headline, the rest why and the fix. */
function warningLine(ctx: CardContext, text: string): HTMLElement {
  const [headline, ...rest] = text.split("\n");
  return folded(ctx, "warning", "guard-warning", headline, rest.map((line) => h("p", null, inlineText(line))));
}

function silentLine(ctx: CardContext, silent: GuardSilent, since: number | null): HTMLElement {
  const when = since === null ? "" : " since plan mode began";
  return folded(ctx, `silent:${silent.agent}`, "guard-silent", h("strong", null, `${silent.agent}'s guard has not been heard from${when}`), [
    h(
      "p",
      null,
      `Its hooks were installed for this notebook, yet nothing shows that ${silent.agent} runs them: ` +
        "plan mode may not hold there. In this notebook's folder, ",
      codeText(silent.doctor, null),
      " says why.",
    ),
  ]);
}

/** The card's lines about its guards, or null where there is nothing to say. */
export function guardLines(ctx: CardContext): HTMLElement | null {
  const data: CardData = ctx.data;
  const warning = data.guard_warning ?? null;
  const guards = data.guards;
  const holding = data.snapshot.mode === "plan" || data.snapshot.pending_proposal_hash !== null;
  const heard = Boolean(guards && !ctx.frame.frozen && holding && (guards.seen.length || guards.silent.length));
  if (!warning && !heard) return null;
  const box = h("div", "jp-plans-guards");
  if (warning) box.append(warningLine(ctx, warning));
  if (guards && heard) {
    const offset = offsetOf(guards);
    for (const silent of guards.silent) box.append(silentLine(ctx, silent, guards.since));
    for (const seen of guards.seen) box.append(seenLine(seen, offset));
    if (guards.seen.length) keepTicking();
  }
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
