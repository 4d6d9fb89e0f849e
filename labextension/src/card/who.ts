/** Who decided, as the card shows a person (DESIGN section 12). */
import type { DecidedBy } from "../types";

/** The recorded name, with the display name beside it where it says another: "dana (Dana Scully)". */
export function shownName(by: DecidedBy | null | undefined): string | null {
  if (!by?.name) return null;
  return by.display && by.display !== by.name ? `${by.name} (${by.display})` : by.name;
}
