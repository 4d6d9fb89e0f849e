/**
 * Small DOM builders for the card. Every string becomes a text node: nothing here parses
 * HTML, so model-authored text can never become markup.
 */

export type Child = Node | string | number | null | undefined | false;
type AttrValue = string | number | boolean | null | undefined;
type Listeners = { [E in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[E]) => void };

export interface Props {
  class?: string;
  /** Names the element across re-renders, so focus and caret can be put back. */
  key?: string;
  attrs?: Record<string, AttrValue>;
  on?: Listeners;
}

export const KEY_ATTR = "data-jp-plans-key";
/**
 * On what says where things stand ("decided": the approval; "activity": what the agent does;
 * "mode": the mode chip): where focus goes once the control that had it went with a decision.
 */
export const STANDING_ATTR = "data-jp-plans-standing";

/** The focus key of every such line: focus on one goes, on the next drawing, to the first
 * of them there (an approval that came meanwhile before the mode chip). */
export const STANDING_KEY = "standing";

/** The attributes that make a line of the card a place focus may land on, by its words. */
export function standing(kind: string, label: string): Record<string, string | number> {
  return { [STANDING_ATTR]: kind, [KEY_ATTR]: STANDING_KEY, tabindex: -1, "aria-label": label };
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | string | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  const options: Props = typeof props === "string" ? { class: props } : (props ?? {});
  if (options.class) element.className = options.class;
  if (options.key !== undefined) element.setAttribute(KEY_ATTR, options.key);
  for (const [name, value] of Object.entries(options.attrs ?? {})) {
    if (value === false || value === null || value === undefined) continue;
    element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const [type, listener] of Object.entries(options.on ?? {})) {
    element.addEventListener(type, listener as EventListener);
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

export interface ButtonOptions {
  class?: string;
  key?: string;
  label?: string;
  title?: string;
  disabled?: boolean;
  attrs?: Record<string, AttrValue>;
  onClick?: () => void;
}

/** A real <button type="button">, so keyboard and screen readers get it for free. */
export function button(options: ButtonOptions, ...children: Child[]): HTMLButtonElement {
  const { onClick } = options;
  return h(
    "button",
    {
      class: `jp-plans-button ${options.class ?? ""}`.trim(),
      key: options.key,
      attrs: {
        type: "button",
        "aria-label": options.label,
        title: options.title ?? options.label,
        disabled: options.disabled,
        ...options.attrs,
      },
      on: onClick ? { click: () => onClick() } : {},
    },
    ...children,
  );
}

/** Longer pieces of code than this may break anywhere, as a last resort in a narrow card. */
const WHOLE_PIECE_CHARS = 24;

/**
 * Code (a command, a path, an identifier) that wraps only between its words or after a `/`,
 * never inside a word: `--trust` stays whole, `.codex/hooks.json` breaks after `.codex/`.
 */
export function codeText(text: string, className: string | null = "jp-plans-inline-code"): HTMLElement {
  const code = h("code", className);
  for (const part of text.split(/( +)/)) {
    if (part === "") continue;
    if (part.trim() === "") {
      code.append(part);
      continue;
    }
    part.split(/(?<=\/)/).forEach((piece, index) => {
      if (index > 0) code.append(h("wbr"));
      code.append(piece.length > WHOLE_PIECE_CHARS ? piece : h("span", "jp-plans-nowrap", piece));
    });
  }
  return code;
}

/**
 * Text with `backtick` spans shown as code, the way agents write identifiers. The split is
 * on characters only; no other markup is recognised.
 */
export function inlineText(text: string): Node {
  const fragment = document.createDocumentFragment();
  const parts = text.split(/`([^`\n]+)`/);
  parts.forEach((part, index) => {
    if (part === "") return;
    fragment.appendChild(index % 2 === 1 ? codeText(part) : document.createTextNode(part));
  });
  return fragment;
}

/** Text for screen readers only. */
export function srOnly(text: string): HTMLSpanElement {
  return h("span", "jp-plans-sr-only", text);
}

export function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** As the Python side and the palette's dialog name a proposal: the first 12 hex digits. */
export const SHORT_HASH_LENGTH = 12;

export function shortHash(hash: string): string {
  return hash.slice(0, SHORT_HASH_LENGTH);
}

/**
 * A middle dot between two items of a line. The space before it does not break, so a wrapped
 * line never starts with the dot.
 */
export function dotSeparator(): DocumentFragment {
  const fragment = document.createDocumentFragment();
  fragment.append("\u00a0", h("span", { class: "jp-plans-dot-sep", attrs: { "aria-hidden": "true" } }, "·"), " ");
  return fragment;
}
