/** The Plan icon: the panel's tab, the notebook toolbar button and the settings editor show it. */

import { LabIcon } from "@jupyterlab/ui-components";

export const planIcon = new LabIcon({
  name: "jupyter-plans:plan",
  svgstr:
    '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">' +
    '<g class="jp-icon3" fill="none" stroke="#616161" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round">' +
    '<path d="M9 4H6.5A1.5 1.5 0 0 0 5 5.5v14A1.5 1.5 0 0 0 6.5 21h11a1.5 1.5 0 0 0 1.5-1.5v-14A1.5 1.5 0 0 0 17.5 4H15"/>' +
    '<rect x="9" y="2.5" width="6" height="3.2" rx="1"/>' +
    '<path d="M8.3 11l1.4 1.4 2.4-2.6M14 11.5h2.2M8.3 16.2l1.4 1.4 2.4-2.6M14 16.7h2.2"/>' +
    "</g></svg>",
});
