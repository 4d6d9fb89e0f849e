/** The phases and their steps, with what changed since the proposal the person saw. */

import type { CellRun, Changes, Phase, Plan, Step } from "../types";
import { changedRuns, citedText, runsOf, stepCells } from "./cells";
import { stepCheck } from "./checks";
import { commentToggle, stepThread } from "./comments";
import type { CardContext } from "./context";
import type { Child } from "./dom";
import { h, inlineText, plural, srOnly } from "./dom";
import { statusIcon } from "./icons";
import { phasesOf } from "./state";

export function phaseHeader(index: number, title: string, count: number): HTMLElement {
  return h(
    "div",
    "jp-plans-phase-header",
    h("span", "jp-plans-phase-number", String(index + 1)),
    h("span", { class: "jp-plans-phase-sep", attrs: { "aria-hidden": "true" } }, "·"),
    h("span", "jp-plans-phase-title", title),
    h("span", "jp-plans-phase-count", plural(count, "step", "steps")),
  );
}

/**
 * Sets the width of the id column for every phase at once, from the longest id, so the
 * descriptions line up down the whole card. Longer ids than the cap wrap.
 */
export function sizeIdColumn(element: HTMLElement, ids: string[]): void {
  const longest = ids.reduce((max, id) => Math.max(max, id.length), 4);
  element.style.setProperty("--jp-plans-id-chars", String(Math.min(longest, 18)));
}

function dependsLine(ids: string[]): HTMLElement {
  const line = h("span", "jp-plans-meta-item", h("span", "jp-plans-meta-label", "after: "));
  ids.forEach((id, index) => {
    if (index > 0) line.append(", ");
    line.append(h("code", null, id));
  });
  return line;
}

/** The line under a step: what it waits on, and its acceptance (also shown while editing). */
export function stepMeta(step: Pick<Step, "depends_on" | "acceptance">): HTMLElement | null {
  const items: Child[] = [];
  if (step.depends_on.length) items.push(dependsLine(step.depends_on));
  if (step.acceptance) {
    items.push(h("span", "jp-plans-meta-item", h("span", "jp-plans-meta-label", "accept: "), inlineText(step.acceptance)));
  }
  return items.length ? h("div", "jp-plans-step-meta", ...items) : null;
}

function tag(kind: "added" | "reworded" | "removed" | "active", text: string): HTMLElement {
  return h("span", `jp-plans-tag jp-plans-tag-${kind}`, text);
}

/** What a step's row says of it: a change since the proposal the person saw, else in progress. */
function stepTag(change: "added" | "reworded" | null, status: Step["status"]): HTMLElement | null {
  if (change === "added") return tag("added", "+ added");
  if (change === "reworded") return tag("reworded", "~ reworded");
  return status === "in_progress" ? tag("active", "in progress") : null;
}

/** The description, its earlier wording above it, and under it what it waits on, evidence, cells. */
function stepBody(ctx: CardContext, step: Step, before: string | null, runs: CellRun[]): HTMLElement {
  const body = h("div", "jp-plans-step-body");
  if (before !== null) {
    body.append(h("div", "jp-plans-step-before", srOnly("was: "), h("del", null, before)), srOnly("now: "));
  }
  body.append(h("div", "jp-plans-step-desc", inlineText(step.description)));
  const details = stepMeta(step);
  if (details) body.append(details);
  if (step.evidence) {
    body.append(
      h(
        "div",
        "jp-plans-step-evidence",
        h("span", "jp-plans-meta-label", "evidence: "),
        citedText(ctx, step.id, step.evidence, runs),
      ),
    );
  }
  const check = stepCheck(ctx, step);
  if (check) body.append(check);
  const cells = stepCells(ctx, step, runs);
  if (cells) body.append(cells);
  return body;
}

/**
 * A step's id and its tag: in a wide card each in a column of its own (the tag at the row's
 * end), in a narrow one side by side above the description.
 */
function stepHead(id: HTMLElement, tag: HTMLElement | null): HTMLElement {
  return h("span", "jp-plans-step-head", id, tag);
}

function stepRow(ctx: CardContext, step: Step, before: string | null, added: boolean): HTMLElement {
  const status = step.status;
  const change = added ? "added" : before !== null ? "reworded" : null;
  const runs = runsOf(ctx.snapshot, step.id);
  const changedAfter = changedRuns(step, runs).length > 0;
  return h(
    "li",
    {
      class: `jp-plans-step jp-plans-status-${status}${change ? ` jp-plans-change-${change}` : ""}${
        changedAfter ? " jp-plans-step-changed" : ""
      }`,
      attrs: { "data-step-id": step.id, "aria-current": status === "in_progress" ? "step" : undefined },
    },
    h("span", "jp-plans-step-icon", statusIcon(status)),
    stepHead(h("code", "jp-plans-step-id", step.id), stepTag(change, status)),
    stepBody(ctx, step, before, runs),
    commentToggle(ctx, step.id, `on step ${step.id}`),
    // Under the step, as wide as the row: its comments, and the form while it is open.
    stepThread(ctx, step),
  );
}

function removedRow(step: Step): HTMLElement {
  return h(
    "li",
    { class: "jp-plans-step jp-plans-change-removed", attrs: { "data-step-id": step.id } },
    h("span", "jp-plans-step-icon", statusIcon("pending")),
    stepHead(h("code", "jp-plans-step-id", h("del", null, step.id)), tag("removed", "− removed")),
    h("div", "jp-plans-step-body", srOnly("removed: "), h("div", "jp-plans-step-desc", h("del", null, step.description))),
  );
}

/**
 * Which phase a removed step is shown in. The change summary does not say where it was,
 * so it goes after the latest step it depended on that is still there, else at the end.
 */
function placeRemoved(phases: Phase[], removed: Step[]): Step[][] {
  const phaseOf = new Map<string, number>();
  phases.forEach((phase, index) => phase.steps.forEach((step) => phaseOf.set(step.id, index)));
  const placed: Step[][] = phases.map(() => []);
  for (const step of removed) {
    const homes = step.depends_on.map((id) => phaseOf.get(id)).filter((index): index is number => index !== undefined);
    const home = homes.length ? Math.max(...homes) : phases.length - 1;
    placed[home]?.push(step);
  }
  return placed;
}

export function stepList(ctx: CardContext, plan: Plan, changes: Changes | null): HTMLElement {
  const phases = phasesOf(plan);
  const added = new Set((changes?.added ?? []).map((step) => step.id));
  const reworded = new Map((changes?.reworded ?? []).map((change) => [change.id, change.before]));
  const removed = changes?.removed ?? [];
  const removedByPhase = placeRemoved(phases, removed);
  const root = h("div", "jp-plans-phases");
  sizeIdColumn(root, [...plan.steps, ...removed].map((step) => step.id));
  phases.forEach((phase, index) => {
    const block = h("section", { class: "jp-plans-phase", attrs: { "aria-label": phase.title ?? `Phase ${index + 1}` } });
    if (phase.title) block.append(phaseHeader(index, phase.title, phase.steps.length));
    const list = h("ol", "jp-plans-steps");
    for (const step of phase.steps) list.append(stepRow(ctx, step, reworded.get(step.id) ?? null, added.has(step.id)));
    for (const step of removedByPhase[index] ?? []) list.append(removedRow(step));
    block.append(list);
    root.append(block);
  });
  if (phases.length === 0 && removed.length) {
    root.append(h("ol", "jp-plans-steps", ...removed.map(removedRow)));
  }
  return root;
}
