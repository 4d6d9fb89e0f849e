/**
 * The demo page: the card rendered from fixtures, with actions answered by a pretend kernel
 * after a short delay, and a light/dark switch. `?hostile` adds a card of hostile text.
 */

import { renderCard } from "../src/card";
import type { CardActions, CardData, Phase } from "../src/types";
import { HASH, hostile, noPlan, planUnderWay, waitingProposal } from "./fixtures";

interface DemoWindow {
  demoLog: unknown[];
  demoErrors: string[];
  /** Changes a card's data from outside, as a snapshot pushed by the kernel would. */
  demoUpdate(cellId: string, change: (data: CardData) => void, error?: string | null): void;
}
const demo = window as unknown as Window & DemoWindow;
demo.demoLog = [];
demo.demoErrors = [];
const updaters = new Map<string, (change: (data: CardData) => void, error?: string | null) => void>();
demo.demoUpdate = (cellId, change, error) => updaters.get(cellId)?.(change, error);

const log = document.getElementById("log")!;
const cards = document.getElementById("cards")!;

function fakeHash(seed: string): string {
  let value = 0;
  for (const char of seed) value = (value * 31 + char.charCodeAt(0)) >>> 0;
  return Array.from({ length: 8 }, (_, index) => ((value >>> (index * 3)) ^ (index * 2654435761)) >>> 0)
    .map((part) => part.toString(16).padStart(8, "0").slice(0, 8))
    .join("");
}

type Answer = (change: (snapshot: CardData["snapshot"]) => void) => void;

/** The pretend kernel's answers to the card's actions, through `answer` (400 ms later). */
function pretendKernel(answer: Answer, data: () => CardData, refuse: (error: string) => void): CardActions {
  const record = (entry: Record<string, unknown>) => {
    demo.demoLog.push(entry);
    log.textContent = `sent: ${JSON.stringify(entry).slice(0, 160)}`;
  };
  const leave = (snapshot: CardData["snapshot"], mode: "default" | null) => {
    snapshot.pending_proposal_hash = null;
    if (mode) snapshot.mode = mode;
    data().changes = null;
  };
  return {
    approve(hash) {
      record({ action: "approve", hash });
      answer((snapshot) => {
        if (hash !== snapshot.pending_proposal_hash) return refuse("approve refused: that hash is not the waiting proposal's");
        snapshot.approved_proposal_hash = hash;
        leave(snapshot, "default");
      });
    },
    revise(notes) {
      record({ action: "revise", notes });
      answer((snapshot) => leave(snapshot, null));
    },
    off() {
      record({ action: "off" });
      answer((snapshot) => leave(snapshot, "default"));
    },
    edit(change) {
      record({ action: "edit", change });
      answer((snapshot) => {
        const plan = snapshot.plan!;
        if (change.expected_revision !== plan.revision) {
          return refuse(`edit refused: expected_revision ${change.expected_revision}, the plan is at ${plan.revision}`);
        }
        const phases: Phase[] = structuredClone(change.phases);
        snapshot.plan = { ...plan, revision: plan.revision + 1, phases, steps: phases.flatMap((phase) => phase.steps) };
        if (snapshot.pending_proposal_hash) snapshot.pending_proposal_hash = fakeHash(JSON.stringify(phases));
        data().changes = null;
      });
    },
  };
}

/** A card whose actions change its data the way the kernel would, 400 ms later. */
function mount(host: HTMLElement, initial: CardData, initialError: string | null = null): void {
  let data = structuredClone(initial);
  let error = initialError;
  const draw = () => renderCard(host, data, actions, error);
  const answer: Answer = (change) => {
    setTimeout(() => {
      data = structuredClone(data);
      error = null;
      change(data.snapshot);
      data.snapshot.cursor += 1;
      draw();
    }, 400);
  };
  const actions = pretendKernel(answer, () => data, (refusal) => {
    error = refusal;
  });
  updaters.set(host.parentElement?.id ?? "", (change, newError) => {
    data = structuredClone(data);
    change(data);
    if (newError !== undefined) error = newError;
    draw();
  });
  draw();
}

function cell(count: number, source: string, id: string): HTMLElement {
  const wrapper = document.createElement("section");
  wrapper.className = "demo-cell";
  wrapper.id = id;
  const inPrompt = document.createElement("div");
  inPrompt.className = "demo-prompt demo-prompt-in";
  inPrompt.textContent = `[${count}]:`;
  const input = document.createElement("div");
  input.className = "demo-input";
  input.textContent = source;
  const outPrompt = document.createElement("div");
  outPrompt.className = "demo-prompt demo-prompt-out";
  outPrompt.textContent = `[${count}]:`;
  const output = document.createElement("div");
  output.className = "demo-output";
  wrapper.append(inPrompt, input, outPrompt, output);
  cards.append(wrapper);
  return output;
}

window.addEventListener("error", (event) => demo.demoErrors.push(String(event.message)));

mount(cell(7, "%plan", "waiting"), waitingProposal());
(window as unknown as { demoSnapshot: unknown }).demoSnapshot = waitingProposal().snapshot;
mount(cell(12, "%plan", "underway"), planUnderWay(), "approve refused: no proposal is waiting");
mount(cell(1, "%plan", "empty"), noPlan());
// A saved notebook: the same card with no actions.
const staticCard = new URLSearchParams(location.search).has("static");
if (staticCard) renderCard(cell(7, "%plan  # saved notebook", "static"), waitingProposal());
if (new URLSearchParams(location.search).has("hostile")) mount(cell(99, "%plan", "hostile"), hostile());

const theme = document.getElementById("theme") as HTMLSelectElement;
const applyTheme = (name: string) => {
  document.documentElement.dataset.theme = name;
  theme.value = name;
};
theme.addEventListener("change", () => applyTheme(theme.value));
applyTheme(new URLSearchParams(location.search).get("theme") ?? "light");

export { HASH };
