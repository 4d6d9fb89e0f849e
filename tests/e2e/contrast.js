/* Contrast as the browser paints it (tests/e2e/contrast.py): loaded into the page and called
   as `measure(roots)` and `ring(roots)`. */

const canvas = document.createElement('canvas');
canvas.width = canvas.height = 1;
const paint = canvas.getContext('2d', { willReadFrequently: true });
function parse(value) {
  let m = /^rgba?\(([^)]*)\)$/.exec(value);
  if (m) {
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return [p[0] / 255, p[1] / 255, p[2] / 255, p.length > 3 ? p[3] : 1];
  }
  m = /^color\(srgb ([^)]*)\)$/.exec(value);
  if (m) {
    const p = m[1].split(/[\s\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  }
  if (value === 'transparent') return [0, 0, 0, 0];
  paint.clearRect(0, 0, 1, 1);
  paint.fillStyle = '#000';
  paint.fillStyle = value;
  paint.fillRect(0, 0, 1, 1);
  const d = paint.getImageData(0, 0, 1, 1).data;
  return [d[0] / 255, d[1] / 255, d[2] / 255, d[3] / 255];
}
const premultiplied = (c) => [c[0] * c[3], c[1] * c[3], c[2] * c[3], c[3]];
const over = (top, under) => top.map((v, i) => v + under[i] * (1 - top[3]));
/* What the page paints at `element` with `layer` (premultiplied) drawn on top of its own
   background: every background from the page down, each group scaled by its opacity. */
function painted(element, layer = [0, 0, 0, 0]) {
  for (let e = element; e; e = e.parentElement) {
    const style = getComputedStyle(e);
    layer = over(layer, premultiplied(parse(style.backgroundColor)));
    layer = layer.map((v) => v * Number(style.opacity));
  }
  return over(layer, [1, 1, 1, 1]);  // the browser's canvas
}
function luminance(c) {
  const [r, g, b] = c.slice(0, 3).map((v) => Math.min(1, Math.max(0, v)))
    .map((v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function ratio(a, b) {
  const [x, y] = [luminance(a), luminance(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}
const hex = (c) => '#' + c.slice(0, 3).map((v) => Math.round(Math.min(1, Math.max(0, v)) * 255)
  .toString(16).padStart(2, '0')).join('');
/* Drawn, and not faded out entirely (a step's Comment until its row is pointed at or holds
   focus: focus_rings measures it then). */
function drawn(element) {
  if (!element.getClientRects().length) return false;
  if (element.closest('.jp-plans-sr-only, [hidden]')) return false;
  if (getComputedStyle(element).visibility !== 'visible') return false;
  let opacity = 1;
  for (let e = element; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
  return opacity > 0.01;
}
function name(element) {
  const classes = [...element.classList].filter((c) => c.startsWith('jp-plans')).join('.');
  return element.tagName.toLowerCase() + (classes ? '.' + classes : '');
}

const labelOf = (element) =>
  element.getAttribute('aria-label') || element.textContent.trim() || element.id || element.tagName;
const around = (element) => (element.parentElement ? painted(element.parentElement) : [1, 1, 1, 1]);
/* Text of a disabled control has no contrast requirement (WCAG: an inactive component). */
const inactive = (element) =>
  element.closest('button:disabled, input:disabled, textarea:disabled, select:disabled') !== null;
const LARGE_PX = 24;
const LARGE_BOLD_PX = 18.66;

/* What one element draws that contrast is asked of: its own text, or it is an icon, a field, a
   button with a boundary, a progress bar. Each as [kind, needed ratio, colour, background, what]. */
function drawnBy(element) {
  const style = getComputedStyle(element);
  const own = (colour) => painted(element, premultiplied(parse(colour)));
  if (element instanceof SVGSVGElement) {
    const what = element.getAttribute('aria-label') || element.getAttribute('class');
    return [['icon', 3, own(style.color), painted(element), what]];
  }
  const found = [];
  const text = [...element.childNodes]
    .filter((node) => node.nodeType === Node.TEXT_NODE)
    .map((node) => node.textContent)
    .join('')
    .trim();
  if (text) {
    const size = parseFloat(style.fontSize);
    const large = size >= LARGE_PX || (size >= LARGE_BOLD_PX && Number(style.fontWeight) >= 700);
    found.push(['text', large ? 3 : 4.5, own(style.color), painted(element), text]);
  }
  const outside = around(element);
  const border = premultiplied(parse(style.borderTopColor));
  const edge = parseFloat(style.borderTopWidth) > 0 && border[3] > 0 ? over(border, outside) : null;
  if (element.matches('input, textarea, select')) {
    found.push(['field', 3, edge ?? painted(element), outside, labelOf(element)]);
  } else if (element.matches('button') && !element.disabled) {
    // Its boundary, where it draws one: a border, or a background of its own; the clearer.
    const fill = painted(element);
    const shown = [edge, ratio(fill, outside) > 1.05 ? fill : null].filter(Boolean);
    if (shown.length) {
      const best = shown.reduce((a, b) => (ratio(a, outside) >= ratio(b, outside) ? a : b));
      found.push(['button', 3, best, outside, labelOf(element)]);
    }
  } else if (element.matches('[role=progressbar]') && element.firstElementChild) {
    const fill = element.firstElementChild;
    if (fill.getBoundingClientRect().width > 0) {
      found.push(['progress', 3, painted(fill), painted(element), 'the filled part against the rest']);
    }
  }
  return found;
}

/* Every text, icon, field, button boundary and progress bar drawn inside `roots`. */
function measure(roots) {
  const found = [];
  for (const root of document.querySelectorAll(roots)) {
    for (const element of [root, ...root.querySelectorAll('*')]) {
      if (element instanceof SVGElement && !(element instanceof SVGSVGElement)) continue;
      if (!drawn(element) || element.closest('option, optgroup')) continue;
      for (const [kind, needed, fg, bg, what] of drawnBy(element)) {
        found.push({
          kind: inactive(element) ? 'inactive' : kind,
          element: name(element),
          what: String(what).slice(0, 60),
          needed,
          ratio: Math.round(ratio(fg, bg) * 100) / 100,
          fg: hex(fg),
          bg: hex(bg),
        });
      }
    }
  }
  return found;
}

/* The focused control's ring against what is painted around it, or null outside `roots`. */
function ring(roots) {
  const element = document.activeElement;
  if (!element || !element.closest(roots)) return null;
  const style = getComputedStyle(element);
  const what = labelOf(element).slice(0, 40);
  if (style.outlineStyle === 'none' || !(parseFloat(style.outlineWidth) > 0)) {
    return { element: name(element), what, needed: 3, ratio: 0, fg: '', bg: '' };
  }
  // Drawn outside the control (a positive offset) or over its own background.
  const under = parseFloat(style.outlineOffset) < 0 ? painted(element) : around(element);
  const ring = over(premultiplied(parse(style.outlineColor)), under);
  return {
    element: name(element),
    what,
    needed: 3,
    ratio: Math.round(ratio(ring, under) * 100) / 100,
    fg: hex(ring),
    bg: hex(under),
  };
}
