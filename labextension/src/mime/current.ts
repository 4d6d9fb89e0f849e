/**
 * A saved card in a notebook open in JupyterLab: it says which revision it shows, and when
 * its session has moved on since (the server's cursor is past the saved one) it offers the
 * plan as it is now, read from the card route and drawn in place under its own label, with a
 * way back. The output itself is never written: nbval compares it.
 */

import { errorMessage } from "../api";
import type { PlansApi, SessionList } from "../api";
import { watchSessions } from "../api/stream";
import { renderCard } from "../card";
import type { CardData, CardNotice } from "../types";
import { isCardData, renderSavedCard, savedNotice } from "./saved";

/** A notebook with many saved cards asks for its sessions once. */
const LIST_REUSE_MS = 2000;
const lists = new Map<string, { at: number; list: Promise<SessionList> }>();

function sessionsOf(api: PlansApi, path: string): Promise<SessionList> {
  const key = `${api.settings.baseUrl}\n${path}`;
  const known = lists.get(key);
  if (known && performance.now() - known.at < LIST_REUSE_MS) return known.list;
  const list = api.sessions(path);
  lists.set(key, { at: performance.now(), list });
  list.catch(() => lists.delete(key));
  return list;
}

export class SavedOrCurrent {
  private saved: unknown = null;
  /** The session's cursor on the server when it is past the saved one; null otherwise. */
  private movedTo: number | null = null;
  private current: CardData | null = null;
  private error: string | null = null;
  private unwatch: (() => void) | null = null;
  private disposed = false;
  /** Drawn only while shown: the live card may take the output's place. */
  private active = false;
  /** Whether the server was asked about this saved data yet. */
  private asked = false;

  constructor(
    private readonly host: HTMLElement,
    private readonly api: PlansApi,
    /** The notebook's path relative to the server root. */
    private readonly path: () => string,
  ) {}

  /**
   * Shows `saved` (the same data again keeps the view the person chose). With `ask`, the
   * server is asked once whether the session moved on; not while a live card may yet come.
   */
  show(saved: unknown, ask: boolean): void {
    if (saved !== this.saved) {
      this.saved = saved;
      this.asked = false;
      this.movedTo = null;
      this.back();
    }
    this.active = true;
    if (ask && !this.asked) {
      this.asked = true;
      void this.checkMoved();
    }
    this.draw();
  }

  /** The live card (or a card without its kernel) took the output's place. */
  hide(): void {
    this.active = false;
    this.back();
    this.host.replaceChildren();
  }

  dispose(): void {
    this.disposed = true;
    this.unwatch?.();
    this.unwatch = null;
  }

  private get savedData(): CardData | null {
    return isCardData(this.saved) ? this.saved : null;
  }

  private draw(): void {
    if (this.disposed || !this.active) return;
    const saved = this.savedData;
    if (!saved) {
      renderSavedCard(this.host, this.saved);
      return;
    }
    if (this.current) {
      renderCard(this.host, this.current, undefined, null, { notice: this.currentNotice(saved, this.current) });
      return;
    }
    const notice: CardNotice = { ...savedNotice(saved) };
    if (this.error) notice.text += ` The plan as it is now could not be read: ${this.error}`;
    else if (this.movedTo !== null) notice.control = { label: "Show the plan as it is now", onClick: () => void this.showCurrent() };
    renderSavedCard(this.host, saved, { notice });
  }

  private currentNotice(saved: CardData, current: CardData): CardNotice {
    const now = current.snapshot.plan?.revision;
    const then = saved.snapshot.plan?.revision;
    const was = then === undefined ? "no plan yet" : `revision ${then}`;
    return {
      kind: "current",
      text:
        now === undefined
          ? `The plan as it is now: no plan. The saved output shows ${was}.`
          : `The plan as it is now, revision ${now}. The saved output shows ${was}.`,
      control: { label: "Back to the saved card", onClick: () => this.backAndDraw() },
    };
  }

  /** Asks the server whether the saved card's session has moved on. */
  private async checkMoved(): Promise<void> {
    const saved = this.savedData;
    if (!saved) return;
    let list: SessionList;
    try {
      list = await sessionsOf(this.api, this.path());
    } catch {
      return; // no server extension, or no plan file: the saved card is all there is
    }
    if (this.disposed || saved !== this.saved) return;
    this.moved(list, saved);
  }

  private moved(list: SessionList, saved: CardData): void {
    const summary = list.sessions.find((session) => session.session_id === saved.snapshot.session_id);
    const movedTo = summary && summary.cursor > saved.snapshot.cursor ? summary.cursor : null;
    const changed = movedTo !== this.movedTo;
    this.movedTo = movedTo;
    if (this.current && summary && summary.cursor !== this.current.snapshot.cursor) void this.read(saved);
    else if (changed) this.draw();
  }

  private async showCurrent(): Promise<void> {
    const saved = this.savedData;
    if (!saved) return;
    await this.read(saved);
    if (this.current && this.unwatch === null) {
      // While the person looks at it, the plan as it is now stays current.
      this.unwatch = watchSessions(this.api, this.path(), { sessions: (list) => this.moved(list, saved) });
    }
  }

  private async read(saved: CardData): Promise<void> {
    try {
      const data = await this.api.card({ path: this.path(), session: saved.snapshot.session_id });
      if (this.disposed || saved !== this.saved) return;
      this.current = data;
      this.error = null;
    } catch (error) {
      if (this.disposed || saved !== this.saved) return;
      this.error = errorMessage(error);
    }
    this.draw();
  }

  private back(): void {
    this.current = null;
    this.error = null;
    this.unwatch?.();
    this.unwatch = null;
  }

  private backAndDraw(): void {
    this.back();
    this.draw();
  }
}
