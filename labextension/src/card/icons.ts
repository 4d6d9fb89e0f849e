/** Inline SVG icons drawn with createElementNS: no images, no fonts, colours from CSS. */

import type { StepStatus } from "../types";

const SVG_NS = "http://www.w3.org/2000/svg";

type Shape = [tag: "circle" | "path" | "rect", attrs: Record<string, string>];

const STROKE = { fill: "none", stroke: "currentColor", "stroke-width": "1.5" };
const ROUND = { "stroke-linecap": "round", "stroke-linejoin": "round" };

const SHAPES: Record<string, Shape[]> = {
  pending: [["circle", { cx: "8", cy: "8", r: "5.5", ...STROKE }]],
  in_progress: [
    ["circle", { cx: "8", cy: "8", r: "5.5", ...STROKE }],
    ["path", { d: "M8 2.5a5.5 5.5 0 0 0 0 11z", fill: "currentColor" }],
  ],
  completed: [
    ["circle", { cx: "8", cy: "8", r: "6.25", fill: "currentColor" }],
    ["path", { d: "M5.2 8.3l1.9 1.9 3.7-3.9", class: "jp-plans-icon-knockout", ...STROKE, "stroke-width": "1.6", ...ROUND }],
  ],
  notebook: [
    ["path", { d: "M3.5 1.5h6.5l2.5 2.5v10.5h-9z", fill: "currentColor" }],
    ["path", { d: "M5.5 6.5h5M5.5 8.7h5M5.5 10.9h3.5", class: "jp-plans-icon-knockout", ...STROKE, "stroke-width": "1.1" }],
  ],
  pause: [
    ["circle", { cx: "8", cy: "8", r: "6", ...STROKE, "stroke-width": "1.4" }],
    ["path", { d: "M6.6 5.6v4.8M9.4 5.6v4.8", ...STROKE, "stroke-width": "1.4", ...ROUND }],
  ],
  question: [
    ["circle", { cx: "8", cy: "8", r: "6", ...STROKE, "stroke-width": "1.4" }],
    ["path", { d: "M6.3 6.3a1.8 1.8 0 1 1 2.5 1.7c-.5.2-.8.6-.8 1.1v.5", ...STROKE, "stroke-width": "1.4", ...ROUND }],
    ["circle", { cx: "8", cy: "11.4", r: "0.85", fill: "currentColor" }],
  ],
  search: [
    ["circle", { cx: "7", cy: "7", r: "4.25", ...STROKE }],
    ["path", { d: "M10.2 10.2l3.3 3.3", ...STROKE, ...ROUND }],
  ],
  check: [["path", { d: "M3.5 8.5l3 3 6-6.5", ...STROKE, "stroke-width": "2", ...ROUND }]],
  copy: [
    ["rect", { x: "5.5", y: "5.5", width: "8", height: "8", rx: "1.5", ...STROKE, "stroke-width": "1.3" }],
    ["path", { d: "M3.5 10.5h-.5a1 1 0 0 1-1-1v-6.5a1 1 0 0 1 1-1h6.5a1 1 0 0 1 1 1v.5", ...STROKE, "stroke-width": "1.3" }],
  ],
  chevron: [["path", { d: "M4 6l4 4 4-4", ...STROKE, "stroke-width": "1.6", ...ROUND }]],
  info: [
    ["circle", { cx: "8", cy: "8", r: "6", ...STROKE, "stroke-width": "1.3" }],
    ["path", { d: "M8 7.2v4.2", ...STROKE, "stroke-width": "1.5", ...ROUND }],
    ["circle", { cx: "8", cy: "5", r: "0.9", fill: "currentColor" }],
  ],
  alert: [
    ["path", { d: "M8 2l6.5 11.5h-13z", ...STROKE, "stroke-width": "1.4", ...ROUND }],
    ["path", { d: "M8 6.5v3.3", ...STROKE, "stroke-width": "1.5", ...ROUND }],
    ["circle", { cx: "8", cy: "11.7", r: "0.85", fill: "currentColor" }],
  ],
  failed: [
    ["circle", { cx: "8", cy: "8", r: "6.25", fill: "currentColor" }],
    ["path", { d: "M5.8 5.8l4.4 4.4M10.2 5.8l-4.4 4.4", class: "jp-plans-icon-knockout", ...STROKE, "stroke-width": "1.6", ...ROUND }],
  ],
  pencil: [["path", { d: "M10.5 2.8l2.7 2.7-7.7 7.7h-2.7v-2.7z M9 4.3l2.7 2.7", ...STROKE, "stroke-width": "1.3", ...ROUND }]],
  up: [["path", { d: "M8 13V3.5M4 7.5l4-4 4 4", ...STROKE, "stroke-width": "1.6", ...ROUND }]],
  down: [["path", { d: "M8 3v9.5M4 8.5l4 4 4-4", ...STROKE, "stroke-width": "1.6", ...ROUND }]],
  remove: [["path", { d: "M4.5 4.5l7 7M11.5 4.5l-7 7", ...STROKE, "stroke-width": "1.6", ...ROUND }]],
  plus: [["path", { d: "M8 3.5v9M3.5 8h9", ...STROKE, "stroke-width": "1.6", ...ROUND }]],
  comment: [["path", { d: "M2.5 3.5h11v7h-6l-3 2.5v-2.5h-2z", ...STROKE, "stroke-width": "1.3", ...ROUND }]],
};

export type IconName = keyof typeof SHAPES;

/** A decorative icon, or a labelled image when `label` is given. */
export function icon(name: IconName, label?: string): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("class", `jp-plans-icon jp-plans-icon-${name}`);
  if (label) {
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", label);
  } else {
    svg.setAttribute("aria-hidden", "true");
  }
  svg.setAttribute("focusable", "false");
  for (const [tag, attrs] of SHAPES[name] ?? []) {
    const shape = document.createElementNS(SVG_NS, tag);
    for (const [attr, value] of Object.entries(attrs)) shape.setAttribute(attr, value);
    svg.appendChild(shape);
  }
  return svg;
}

export const STATUS_LABEL: Record<StepStatus, string> = {
  pending: "pending",
  in_progress: "in progress",
  completed: "marked complete by the agent",
};

export function statusIcon(status: StepStatus): SVGSVGElement {
  const known: StepStatus = status in STATUS_LABEL ? status : "pending";
  return icon(known, STATUS_LABEL[known]);
}
