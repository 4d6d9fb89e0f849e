/**
 * The sessions stream of a notebook's plan file: `GET sessions` with `Accept:
 * text/event-stream` sends `{"current", "sessions"}` on connect and again after any change
 * any process commits. One EventSource per notebook in the page, shared by whoever listens
 * (the Plan panel, a card whose kernel is gone, a saved card showing the plan as it is now):
 * a browser holds at most six connections to one server.
 */

import type { PlansApi, SessionList } from "./index";

export type StreamStatus = "live" | "retrying";

export interface SessionsListener {
  /** The file's sessions, on connect and after each change. */
  sessions(list: SessionList): void;
  /** "live" while the stream is open, "retrying" while it is not. */
  status?(status: StreamStatus): void;
}

const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 30000;

/**
 * One stream that stays open: the browser's EventSource reconnects by itself after a dropped
 * connection; when it gives up (an error status, a proxy that refuses streams) a new one is
 * opened after a growing delay.
 */
class SharedSessionsStream {
  readonly listeners = new Set<SessionsListener>();
  last: SessionList | null = null;
  status: StreamStatus = "retrying";
  private source: EventSource | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private retryMs = FIRST_RETRY_MS;
  private closed = false;

  constructor(
    private readonly api: PlansApi,
    private readonly path: string,
  ) {
    this.open();
  }

  close(): void {
    this.closed = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.source?.close();
    this.source = null;
  }

  private setStatus(status: StreamStatus): void {
    if (status === this.status) return;
    this.status = status;
    for (const listener of [...this.listeners]) listener.status?.(status);
  }

  private open(): void {
    if (this.closed) return;
    const source = new EventSource(this.api.streamUrl("sessions", { path: this.path }));
    this.source = source;
    source.addEventListener("sessions", (message) => {
      let list: SessionList;
      try {
        list = JSON.parse((message as MessageEvent).data) as SessionList;
      } catch {
        return;
      }
      if (!list || !Array.isArray(list.sessions)) return;
      this.last = list;
      for (const listener of [...this.listeners]) listener.sessions(list);
    });
    source.addEventListener("open", () => {
      this.retryMs = FIRST_RETRY_MS;
      this.setStatus("live");
    });
    source.addEventListener("error", () => {
      if (this.closed || source !== this.source) return;
      this.setStatus("retrying");
      if (source.readyState !== EventSource.CLOSED) return; // the browser is reconnecting
      source.close();
      this.source = null;
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        this.open();
      }, this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, LAST_RETRY_MS);
    });
  }
}

const streams = new Map<string, SharedSessionsStream>();

/**
 * Calls `listener` with the sessions of the notebook at `path` now (when already known) and
 * after every change, until the returned function is called.
 */
export function watchSessions(api: PlansApi, path: string, listener: SessionsListener): () => void {
  const key = `${api.settings.baseUrl}\n${path}`;
  let stream = streams.get(key);
  if (!stream) {
    stream = new SharedSessionsStream(api, path);
    streams.set(key, stream);
  }
  const shared = stream;
  shared.listeners.add(listener);
  if (shared.last !== null || shared.status === "live") {
    // What the others already know, after this call returns, as a new stream would tell it.
    queueMicrotask(() => {
      if (!shared.listeners.has(listener)) return;
      listener.status?.(shared.status);
      if (shared.last !== null) listener.sessions(shared.last);
    });
  }
  return () => {
    shared.listeners.delete(listener);
    if (shared.listeners.size === 0 && streams.get(key) === shared) {
      shared.close();
      streams.delete(key);
    }
  };
}
