/**
 * The person's edit of the plan as plain data: reword, reorder, add and remove steps, and
 * turn the draft into the `edit` action's payload. No DOM here.
 */

import type { Phase, Plan, PlanEdit, Step } from "../types";
import { checkProblem } from "./checks";
import { phasesOf } from "./state";
import type { Draft, DraftStep } from "./state";

/** Bounds of DESIGN.md section 2 that an edit can break. */
export const MAX_STEPS = 32;
export const MAX_DESCRIPTION_BYTES = 240;
// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** Characters that make text read otherwise than it is stored (DESIGN.md section 2). */
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const SEPARATOR = /[\u2028\u2029]/;
/** Text of only spaces, separators and format characters (such as U+200B) shows nothing. */
const INVISIBLE = /^[\p{Zs}\p{Zl}\p{Zp}\p{Cf}]*$/u;

function copyStep(step: Step): Step {
  return { ...step, depends_on: [...step.depends_on] };
}

export function startDraft(plan: Plan): Draft {
  const phases = phasesOf(plan).map((phase) => ({
    title: phase.title,
    steps: phase.steps.map((step) => ({ ...copyStep(step), isNew: false })),
  }));
  const draft: Draft = { baseRevision: plan.revision, phases, original: "" };
  draft.original = JSON.stringify(toEdit(draft).phases);
  return draft;
}

interface Position {
  phase: number;
  index: number;
}

function find(draft: Draft, id: string): Position | null {
  for (let phase = 0; phase < draft.phases.length; phase++) {
    const index = draft.phases[phase].steps.findIndex((step) => step.id === id);
    if (index >= 0) return { phase, index };
  }
  return null;
}

export function stepCount(draft: Draft): number {
  return draft.phases.reduce((total, phase) => total + phase.steps.length, 0);
}

export function canMove(draft: Draft, id: string, direction: -1 | 1): boolean {
  const at = find(draft, id);
  if (!at) return false;
  if (direction < 0) return at.index > 0 || at.phase > 0;
  return at.index < draft.phases[at.phase].steps.length - 1 || at.phase < draft.phases.length - 1;
}

/**
 * One place up or down in the flattened order. Past the edge of its phase a step joins the
 * neighbouring phase (at its end going up, at its start going down).
 */
export function moveStep(draft: Draft, id: string, direction: -1 | 1): void {
  if (!canMove(draft, id, direction)) return;
  const at = find(draft, id)!;
  const steps = draft.phases[at.phase].steps;
  const target = at.index + direction;
  if (target >= 0 && target < steps.length) {
    [steps[at.index], steps[target]] = [steps[target], steps[at.index]];
    return;
  }
  const [step] = steps.splice(at.index, 1);
  if (direction < 0) draft.phases[at.phase - 1].steps.push(step);
  else draft.phases[at.phase + 1].steps.unshift(step);
}

/** Removes a step and every reference to it, so no step waits on a step that is gone. */
export function removeStep(draft: Draft, id: string): void {
  const at = find(draft, id);
  if (!at) return;
  draft.phases[at.phase].steps.splice(at.index, 1);
  for (const phase of draft.phases) {
    for (const step of phase.steps) step.depends_on = step.depends_on.filter((other) => other !== id);
  }
}

/** `step-N` with the smallest N that no step of the draft uses. */
export function nextStepId(draft: Draft): string {
  const used = new Set(draft.phases.flatMap((phase) => phase.steps.map((step) => step.id)));
  let n = 1;
  while (used.has(`step-${n}`)) n += 1;
  return `step-${n}`;
}

export function addStep(draft: Draft, phaseIndex: number): string | null {
  const phase = draft.phases[phaseIndex];
  if (!phase || stepCount(draft) >= MAX_STEPS) return null;
  const step: DraftStep = {
    id: nextStepId(draft),
    description: "",
    status: "pending",
    acceptance: null,
    depends_on: [],
    evidence: null,
    check: null,
    isNew: true,
  };
  phase.steps.push(step);
  return step.id;
}

export function setDescription(draft: Draft, id: string, description: string): void {
  const at = find(draft, id);
  if (at) draft.phases[at.phase].steps[at.index].description = description;
}

/**
 * Each step's depends_on as it would be saved: only steps that still exist and come
 * earlier. Kept apart from the draft so a step moved down and back up keeps its links.
 */
export function effectiveDependsOn(draft: Draft): Map<string, string[]> {
  const seen = new Set<string>();
  const result = new Map<string, string[]>();
  for (const phase of draft.phases) {
    for (const step of phase.steps) {
      result.set(step.id, step.depends_on.filter((id) => seen.has(id)));
      seen.add(step.id);
    }
  }
  return result;
}

/** The `edit` payload: phases left empty are dropped, every other field kept as it was. */
export function toEdit(draft: Draft): PlanEdit {
  const dependsOn = effectiveDependsOn(draft);
  const phases: Phase[] = draft.phases
    .filter((phase) => phase.steps.length > 0)
    .map((phase) => ({
      title: phase.title,
      steps: phase.steps.map(({ isNew: _isNew, ...step }) => ({
        ...step,
        depends_on: dependsOn.get(step.id) ?? [],
      })),
    }));
  return { expected_revision: draft.baseRevision, phases };
}

export function isUnchanged(draft: Draft): boolean {
  return JSON.stringify(toEdit(draft).phases) === draft.original;
}

/** "U+202E": names a character without putting it in the page. */
function codePoint(character: string): string {
  return `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** What stops the draft from being saved, one line per problem, or nothing. */
export function problems(draft: Draft): Map<string, string> {
  const found = new Map<string, string>();
  for (const phase of draft.phases) {
    for (const step of phase.steps) {
      // Checked as sent (untrimmed), as the server checks it.
      const text = step.description;
      const bytes = utf8Length(text);
      const bidi = BIDI_CONTROL.exec(text);
      const separator = SEPARATOR.exec(text);
      if (INVISIBLE.test(text.trim())) found.set(step.id, `Step ${step.id}: the description is blank.`);
      else if (bytes > MAX_DESCRIPTION_BYTES)
        found.set(step.id, `Step ${step.id}: the description is ${bytes} bytes; at most ${MAX_DESCRIPTION_BYTES}.`);
      else if (CONTROL.test(text))
        found.set(step.id, `Step ${step.id}: the description holds a control character (a tab or a newline).`);
      else if (bidi)
        found.set(step.id, `Step ${step.id}: the description holds ${codePoint(bidi[0])}, a bidirectional control that changes how text reads; remove it.`);
      else if (separator)
        found.set(step.id, `Step ${step.id}: the description holds ${codePoint(separator[0])}, a line or paragraph separator; keep it to one line.`);
      const check = checkProblem(step);
      if (check) found.set(`check:${step.id}`, check);
    }
  }
  return found;
}
