/**
 * The plan routes of the jupyter-plans server extension (DESIGN.md section 6.6), as typed
 * calls through JupyterLab's authenticated connection; stream.ts keeps their live streams.
 */

import { PageConfig, URLExt } from "@jupyterlab/coreutils";
import { ServerConnection } from "@jupyterlab/services";
import type { CardData, Mode, Snapshot } from "../types";

export interface SessionSummary {
  session_id: string;
  cursor: number;
  mode: Mode;
  revision?: number | null;
  pending_proposal_hash?: string | null;
  /** The first words of the person's task for it, else of its plan's explanation. */
  task?: string | null;
  /** When it began: an ISO 8601 time. */
  created_at?: string;
}

export interface SessionList {
  current: string | null;
  sessions: SessionSummary[];
  /** Each guard's last heartbeat: it moves no cursor, so the panel looks at these too. */
  guards?: { agent: string; at: number }[];
  /** The hooks installed for this plan, and when: an install moves no cursor either. */
  installs?: { agent: string; at: number }[];
}

/** Where a person's decision was made (DESIGN section 12). */
export type DecisionVia = "panel" | "palette" | "card";

export type Decision =
  | { action: "on" }
  | { action: "off" }
  /** The hash is required: an approval binds the proposal the person was shown. */
  | { action: "approve"; hash: string }
  | { action: "revise"; notes: string };

/** The person's act on comments (DESIGN section 14): a new one, or resolving or reopening one. */
export type CommentAct =
  | { step_id: string | null; text: string }
  | { resolve: string }
  | { reopen: string };

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
  /** `via` says where the person decided; who is the identity Jupyter authenticated. */
  decide(address: PlanAddress, decision: Decision, via: DecisionVia): Promise<Snapshot> {
    return this.request<Snapshot>("POST", this.url("decision", address), { ...decision, via });
  }

  /** 200 with the new snapshot; a refusal (409) throws PlansApiError with the reason. */
  comment(address: PlanAddress, act: CommentAct, via: "panel" | "card"): Promise<Snapshot> {
    return this.request<Snapshot>("POST", this.url("comment", address), { ...act, via });
  }

  /**
   * The URL of a route's Server-Sent Events stream, with the token when the page has one
   * (an EventSource sends no Authorization header).
   */
  streamUrl(route: "events" | "sessions", address: PlanAddress, extra: Record<string, string> = {}): string {
    const token = PageConfig.getToken();
    return this.url(route, address, token ? { ...extra, token } : extra);
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
    let parsed: unknown;
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
