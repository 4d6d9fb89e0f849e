/** What every part of the card is built from. */

import type { CardActions, CardData, CardFrame, Changes, Plan, Snapshot } from "../types";
import type { UiState } from "./state";

export interface CardContext {
  data: CardData;
  snapshot: Snapshot;
  plan: Plan | null;
  changes: Changes | null;
  actions: CardActions | undefined;
  frame: CardFrame;
  state: UiState;
  /** Re-renders this host from the last data, after a change of the card's own state. */
  rerender(): void;
}
