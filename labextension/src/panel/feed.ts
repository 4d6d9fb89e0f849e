/**
 * A notebook's plan as the Plan panel shows it: the session list, the card of the shown
 * session, and the plan file's sessions stream, which tells of `%plan new`, another
 * process's new session and every commit within a fraction of a second. A slow poll stands
 * in only while that stream is down.
 */

import { PlansApiError, errorMessage } from "../api";
import type { CommentAct, Decision, PlanAddress, PlansApi, SessionList } from "../api";
import { watchSessions } from "../api/stream";
import type { CardData } from "../types";

export interface FeedSettings {
  /** How often the plan is re-read while its live stream is down, in seconds. */
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

export class PlanFeed {
  private path: string | null = null;
  /** The session the person picked; null follows the plan file's current session. */
  private chosenSession: string | null = null;
  private sessionList: SessionList | null = null;
  private shown: FeedView = { kind: "no-notebook" };
  private failedRead: string | null = null;
  /** Stops listening to the notebook's sessions stream; null while not listening. */
  private unwatch: (() => void) | null = null;
  private streamLive = false;
  /** Bumped whenever the notebook or the session changes, so late answers are dropped. */
  private epoch = 0;
  private poll: ReturnType<typeof setInterval> | null = null;
  private refreshing: Promise<void> | null = null;
  /** A refresh asked for while one runs: whether it is forced, and the newest list sent. */
  private refreshAgain: { force: boolean; sent: SessionList | null } | null = null;
  /** The guards' heartbeats and hook installs of the last session list, as text. */
  private heard = "";

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

  /** True while the sessions stream is open and the last read succeeded. */
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
    this.stopWatching();
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
    void this.refresh();
  }

  /**
   * A decision on the shown session. Resolves to null when done, or to the server's reason
   * with the session's cursor at the time: a refusal stays true until the plan moves on.
   */
  decide(decision: Decision): Promise<Refusal | null> {
    return this.send((address) => this.api.decide(address, decision, "panel"));
  }

  /** The person's act on a comment of the shown session; resolves as `decide` does. */
  comment(act: CommentAct): Promise<Refusal | null> {
    return this.send((address) => this.api.comment(address, act, "panel"));
  }

  private async send(request: (address: PlanAddress) => Promise<unknown>): Promise<Refusal | null> {
    const path = this.path;
    if (path === null || this.shown.kind !== "card") return null;
    const address = { path, session: this.shown.data.snapshot.session_id };
    let refusal: Refusal | null = null;
    try {
      await request(address);
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
   * Reads the session list (or takes the one the stream just sent) and, when something may
   * have changed (or `force`), the card; then listens to the notebook's sessions stream.
   */
  refresh(force = true, sent: SessionList | null = null): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = {
        force: force || (this.refreshAgain?.force ?? false),
        sent,
      };
      return this.refreshing;
    }
    this.refreshing = this.load(force, sent).finally(() => {
      this.refreshing = null;
      const again = this.refreshAgain;
      this.refreshAgain = null;
      if (again) void this.refresh(again.force, again.sent);
    });
    return this.refreshing;
  }

  dispose(): void {
    this.stopWatching();
    if (this.poll !== null) clearInterval(this.poll);
    this.poll = null;
  }

  private async load(force: boolean, sent: SessionList | null): Promise<void> {
    const path = this.path;
    const epoch = this.epoch;
    if (path === null) return;
    let sessions: SessionList;
    try {
      sessions = sent ?? (await this.api.sessions(path));
    } catch (error) {
      if (epoch === this.epoch) this.loadFailed(error);
      return;
    }
    if (epoch !== this.epoch) return;
    // Only a route that answered is streamed: a refused stream would only log errors.
    this.watch(path);
    this.sessionList = sessions;
    if (sessions.sessions.length === 0) {
      // The plan file does not exist yet, or nothing was ever written to it.
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
    const heard = JSON.stringify([sessions.guards ?? [], sessions.installs ?? []]);
    const guardsMoved = heard !== this.heard;
    this.heard = heard;
    if (!force && !guardsMoved && shown !== null && shown.session_id === session && summary?.cursor === shown.cursor) {
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
    this.changed();
  }

  /**
   * No notebook and no plan file (404) is the empty state. Any other failure keeps a card
   * already shown, so a dropped connection does not blank the panel.
   */
  private loadFailed(error: unknown): void {
    if (error instanceof PlansApiError && error.status === 404) {
      this.stopWatching();
      this.shown = { kind: "no-plan" };
    } else if (this.shown.kind === "card") {
      this.failedRead = errorMessage(error);
    } else {
      this.shown = { kind: "failed", message: errorMessage(error) };
    }
    this.changed();
  }

  private watch(path: string): void {
    if (this.unwatch !== null) return;
    this.unwatch = watchSessions(this.api, path, {
      // Every commit moves a cursor, and %plan new moves `current`: read what changed.
      sessions: (list) => {
        if (path === this.path) void this.refresh(false, list);
      },
      status: (status) => {
        if (path !== this.path) return;
        this.streamLive = status === "live";
        this.changed();
      },
    });
  }

  private stopWatching(): void {
    this.unwatch?.();
    this.unwatch = null;
    this.streamLive = false;
  }

  /**
   * A slow timer, read only while the sessions stream is down: it notices a plan file that
   * appears, a new current session and changes to the plan.
   */
  private restartPolling(): void {
    if (this.poll !== null) clearInterval(this.poll);
    this.poll = null;
    if (this.path === null) return;
    const seconds = Math.max(1, this.settings().pollFallbackSeconds);
    this.poll = setInterval(() => {
      if (!this.streamLive) void this.refresh(false);
    }, seconds * 1000);
  }
}
