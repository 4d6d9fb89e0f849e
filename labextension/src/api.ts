/**
 * The plan routes of the jupyter-plans server extension (DESIGN.md section 6.6), as typed
 * calls through JupyterLab's authenticated connection, and their live event stream.
 */

import { PageConfig, URLExt } from "@jupyterlab/coreutils";
import { ServerConnection } from "@jupyterlab/services";
import type { CardData, Mode, Snapshot } from "./types";

export interface SessionSummary {
  session_id: string;
  cursor: number;
  mode: Mode;
  revision?: number | null;
  pending_proposal_hash?: string | null;
}

export interface SessionList {
  current: string | null;
  sessions: SessionSummary[];
}

export type Decision =
  | { action: "on" }
  | { action: "off" }
  /** The hash is required: an approval binds the proposal the person was shown. */
  | { action: "approve"; hash: string }
  | { action: "revise"; notes: string };

/** A route that answered with an error status; `message` is the server's one line. */
export class PlansApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "PlansApiError";
  }
}

export interface PlanEvent {
  seq: number;
  kind: string;
  data: unknown;
  at: string;
}

/** Where a plan lives: the notebook's path relative to the server root, and a session. */
export interface PlanAddress {
  path: string;
  /** Omitted: the plan file's current session. */
  session?: string | null;
}

function query(address: PlanAddress, extra: Record<string, string> = {}): string {
  const params: Record<string, string> = { path: address.path, ...extra };
  if (address.session) params.session = address.session;
  return URLExt.objectToQueryString(params);
}

export class PlansApi {
  constructor(readonly settings: ServerConnection.ISettings = ServerConnection.makeSettings()) {}

  url(route: string, address: PlanAddress, extra: Record<string, string> = {}): string {
    return URLExt.join(this.settings.baseUrl, "api/plans", route) + query(address, extra);
  }

  sessions(path: string): Promise<SessionList> {
    return this.request<SessionList>("GET", this.url("sessions", { path }));
  }

  snapshot(address: PlanAddress): Promise<Snapshot> {
    return this.request<Snapshot>("GET", this.url("snapshot", address));
  }

  card(address: PlanAddress): Promise<CardData> {
    return this.request<CardData>("GET", this.url("card", address));
  }

  /** 200 with the new snapshot; a refusal (409) throws PlansApiError with the reason. */
  decide(address: PlanAddress, decision: Decision): Promise<Snapshot> {
    return this.request<Snapshot>("POST", this.url("decision", address), decision);
  }

  /** The URL of the Server-Sent Events stream, with the token when the page has one. */
  eventsUrl(address: PlanAddress, after: number): string {
    const extra: Record<string, string> = { after: String(after) };
    const token = PageConfig.getToken();
    if (token) extra.token = token;
    return this.url("events", address, extra);
  }

  private async request<T>(method: string, url: string, body?: unknown): Promise<T> {
    const init: RequestInit = { method, headers: { Accept: "application/json" } };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { ...init.headers, "Content-Type": "application/json" };
    }
    let response: Response;
    try {
      response = await ServerConnection.makeRequest(url, init, this.settings);
    } catch (error) {
      throw new PlansApiError(0, `the Jupyter server did not answer: ${errorMessage(error)}`);
    }
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    if (!response.ok) {
      const message =
        parsed && typeof parsed === "object" && typeof (parsed as { message?: unknown }).message === "string"
          ? (parsed as { message: string }).message
          : `${method} ${new URL(url, location.href).pathname} answered ${response.status} ${response.statusText}`.trim();
      throw new PlansApiError(response.status, message);
    }
    return parsed as T;
  }
}

/** The one line to show for a failure: a refusal's reason, or whatever else was thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export interface StreamOptions {
  /** Each event of the plan; the panel only needs to know that something happened. */
  onEvent(event: PlanEvent | null): void;
  /** "live" while the stream is open, "retrying" while it is not. */
  onStatus(status: "live" | "retrying"): void;
}

const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 30000;

/**
 * A plan's event stream that stays open: the browser's EventSource resumes by itself with
 * Last-Event-ID after a dropped connection; when it gives up (an error status, a proxy that
 * refuses streams) a new one is opened after a growing delay, from the last seq seen.
 */
export class PlanEventStream {
  private source: EventSource | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private retryMs = FIRST_RETRY_MS;
  private lastSeq: number;
  private closed = false;

  constructor(
    private readonly api: PlansApi,
    private readonly address: PlanAddress,
    after: number,
    private readonly options: StreamOptions,
  ) {
    this.lastSeq = after;
    this.open();
  }

  close(): void {
    this.closed = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.source?.close();
    this.source = null;
  }

  private open(): void {
    if (this.closed) return;
    const source = new EventSource(this.api.eventsUrl(this.address, this.lastSeq));
    this.source = source;
    const receive = (message: MessageEvent) => {
      let event: PlanEvent | null = null;
      try {
        event = JSON.parse(message.data) as PlanEvent;
      } catch {
        event = null;
      }
      const seq = Number(message.lastEventId || event?.seq);
      if (Number.isFinite(seq) && seq > this.lastSeq) this.lastSeq = seq;
      this.options.onEvent(event);
    };
    source.addEventListener("plan", receive as EventListener);
    source.addEventListener("message", receive);
    source.addEventListener("open", () => {
      this.retryMs = FIRST_RETRY_MS;
      this.options.onStatus("live");
      // Anything written while the stream was down arrives as events; this catches the rest.
      this.options.onEvent(null);
    });
    source.addEventListener("error", () => {
      if (this.closed || source !== this.source) return;
      this.options.onStatus("retrying");
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
