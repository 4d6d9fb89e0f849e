/**
 * A notebook's plan as the Plan panel shows it: the session list, the card of the shown
 * session, one live event stream on it, and a slow poll for what the stream cannot tell.
 */

import { PlanEventStream, PlansApiError, errorMessage } from "../api";
import type { Decision, PlansApi, SessionList } from "../api";
import type { CardData } from "../types";

export interface FeedSettings {
  /** How often the plan is re-read while its event stream is down, in seconds. */
  pollFallbackSeconds: number;
}

export type FeedView =
  | { kind: "no-notebook" }
  | { kind: "loading" }
  | { kind: "no-plan" }
  | { kind: "failed"; message: string }
  | { kind: "card"; data: CardData };

export interface Refusal {
  message: string;
  /** The session's cursor when the decision was refused. */
  cursor: number;
}

/** Events often come in bursts (one tool call writes two or three): fetch once per burst. */
const DEBOUNCE_MS = 150;

export class PlanFeed {
  private path: string | null = null;
  /** The session the person picked; null follows the plan file's current session. */
  private chosenSession: string | null = null;
  private sessionList: SessionList | null = null;
  private shown: FeedView = { kind: "no-notebook" };
  private failedRead: string | null = null;
  private stream: PlanEventStream | null = null;
  private streamKey: string | null = null;
  private streamLive = false;
  /** Bumped whenever the notebook or the session changes, so late answers are dropped. */
  private epoch = 0;
  private debounce: ReturnType<typeof setTimeout> | null = null;
  private poll: ReturnType<typeof setInterval> | null = null;
  private refreshing: Promise<void> | null = null;
  private refreshAgain = false;

  constructor(
    private readonly api: PlansApi,
    private readonly settings: () => FeedSettings,
    /** Called after every change of what the feed shows. */
    private readonly changed: () => void,
  ) {}

  get notebook(): string | null {
    return this.path;
  }

  get view(): FeedView {
    return this.shown;
  }

  get sessions(): SessionList | null {
    return this.sessionList;
  }

  /** True while the event stream is open and the last read succeeded. */
  get live(): boolean {
    return this.streamLive && this.failedRead === null;
  }

  /** Why the last read failed while a card was shown (the card stays, marked stale). */
  get readError(): string | null {
    return this.failedRead;
  }

  setNotebook(path: string | null): void {
    if (path === this.path) return;
    this.path = path;
    this.chosenSession = null;
    this.sessionList = null;
    this.failedRead = null;
    this.epoch += 1;
    this.closeStream();
    this.shown = path === null ? { kind: "no-notebook" } : { kind: "loading" };
    this.changed();
    this.restartPolling();
    if (path !== null) void this.refresh();
  }

  /** Shows another session; picking the current one goes back to following the current. */
  pickSession(session: string): void {
    const next = session === (this.sessionList?.current ?? null) ? null : session;
    if (next === this.chosenSession) return;
    this.chosenSession = next;
    this.epoch += 1;
    this.closeStream();
    void this.refresh();
  }

  /**
   * A decision on the shown session. Resolves to null when done, or to the server's reason
   * with the session's cursor at the time: a refusal stays true until the plan moves on.
   */
  async decide(decision: Decision): Promise<Refusal | null> {
    const path = this.path;
    if (path === null || this.shown.kind !== "card") return null;
    const address = { path, session: this.shown.data.snapshot.session_id };
    let refusal: Refusal | null = null;
    try {
      await this.api.decide(address, decision);
    } catch (error) {
      refusal = { message: errorMessage(error), cursor: this.shown.data.snapshot.cursor };
      try {
        refusal.cursor = (await this.api.snapshot(address)).cursor;
      } catch {
        // The cursor shown will do.
      }
    }
    if (path === this.path) void this.refresh();
    return refusal;
  }

  settingsChanged(): void {
    this.restartPolling();
  }

  /**
   * Reads the session list and, when something may have changed (or `force`), the card;
   * then keeps one event stream open on the shown session.
   */
  refresh(force = true): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = this.refreshAgain || force;
      return this.refreshing;
    }
    this.refreshing = this.load(force).finally(() => {
      this.refreshing = null;
      if (this.refreshAgain) {
        this.refreshAgain = false;
        void this.refresh();
      }
    });
    return this.refreshing;
  }

  dispose(): void {
    this.closeStream();
    if (this.poll !== null) clearInterval(this.poll);
    if (this.debounce !== null) clearTimeout(this.debounce);
    this.poll = this.debounce = null;
  }

  private async load(force: boolean): Promise<void> {
    const path = this.path;
    const epoch = this.epoch;
    if (path === null) return;
    let sessions: SessionList;
    try {
      sessions = await this.api.sessions(path);
    } catch (error) {
      if (epoch === this.epoch) this.loadFailed(error);
      return;
    }
    if (epoch !== this.epoch) return;
    this.sessionList = sessions;
    if (sessions.sessions.length === 0) {
      // The plan file does not exist yet, or nothing was ever written to it.
      this.closeStream();
      this.shown = { kind: "no-plan" };
      this.changed();
      return;
    }
    if (this.chosenSession !== null && !sessions.sessions.some((s) => s.session_id === this.chosenSession)) {
      this.chosenSession = null;
    }
    const session = this.chosenSession ?? sessions.current ?? sessions.sessions[0].session_id;
    const shown = this.shown.kind === "card" ? this.shown.data.snapshot : null;
    const summary = sessions.sessions.find((s) => s.session_id === session);
    if (!force && shown !== null && shown.session_id === session && summary?.cursor === shown.cursor) {
      this.failedRead = null;
      this.changed();
      return;
    }
    let data: CardData;
    try {
      data = await this.api.card({ path, session });
    } catch (error) {
      if (epoch === this.epoch) this.loadFailed(error);
      return;
    }
    if (epoch !== this.epoch) return;
    this.failedRead = null;
    this.shown = { kind: "card", data };
    this.openStream(path, data.snapshot.session_id, data.snapshot.cursor);
    this.changed();
  }

  /**
   * No notebook and no plan file (404) is the empty state. Any other failure keeps a card
   * already shown, so a dropped connection does not blank the panel.
   */
  private loadFailed(error: unknown): void {
    if (error instanceof PlansApiError && error.status === 404) {
      this.closeStream();
      this.shown = { kind: "no-plan" };
    } else if (this.shown.kind === "card") {
      this.failedRead = errorMessage(error);
    } else {
      this.shown = { kind: "failed", message: errorMessage(error) };
    }
    this.changed();
  }

  private openStream(path: string, session: string, cursor: number): void {
    const key = `${path}\n${session}`;
    if (this.stream && this.streamKey === key) return;
    this.closeStream();
    this.streamKey = key;
    this.stream = new PlanEventStream(this.api, { path, session }, cursor, {
      onEvent: () => this.scheduleRefresh(),
      onStatus: (status) => {
        this.streamLive = status === "live";
        this.changed();
      },
    });
  }

  private closeStream(): void {
    this.stream?.close();
    this.stream = null;
    this.streamKey = null;
    this.streamLive = false;
  }

  private scheduleRefresh(): void {
    if (this.debounce !== null) return;
    this.debounce = setTimeout(() => {
      this.debounce = null;
      void this.refresh();
    }, DEBOUNCE_MS);
  }

  /**
   * A slow timer: it notices a new current session (which writes no event to the stream
   * shown), a plan file that appears, and, while the stream is down, changes to the plan.
   */
  private restartPolling(): void {
    if (this.poll !== null) clearInterval(this.poll);
    this.poll = null;
    if (this.path === null) return;
    const seconds = Math.max(1, this.settings().pollFallbackSeconds);
    this.poll = setInterval(() => void this.refresh(false), seconds * 1000);
  }
}
