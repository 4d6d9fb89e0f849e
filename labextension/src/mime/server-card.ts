/**
 * A card output whose kernel is gone (restarted, shut down, replaced). The live card of its
 * session carries on through the server extension: it reads the card route, follows the plan
 * file's sessions stream, and decides by hash with POST decision. Where the server extension
 * does not answer, it says in one line that its kernel is gone, its buttons disabled. A card
 * that a newer one had superseded keeps what it showed.
 */

import { errorMessage } from "../api";
import type { CommentAct, Decision, PlanAddress, PlansApi } from "../api";
import { watchSessions } from "../api/stream";
import { KERNEL_GONE_NOTICE, renderCard, supersededNotice } from "../card";
import type { CardActions, CardData, CardFrame } from "../types";

export interface ServerCardOptions {
  api: PlansApi;
  /** The notebook's path relative to the server root. */
  path: () => string;
  /** What the live card showed last. */
  start: CardData;
  /** Set when a newer card of the session had taken over before the kernel went. */
  supersededBy: string | null;
  /** The widget model id the output showed, kept on the card's root. */
  modelId: string | null;
}

const SERVER_NOTICE = {
  kind: "server",
  text: "Its kernel is gone: this card now reads and decides through the Jupyter server.",
} as const;

const READING_NOTICE = {
  kind: "server",
  text: "Its kernel is gone: reaching the plan through the Jupyter server…",
} as const;

/** Where a question is answered when this card cannot send an answer. */
const ANSWER_HINT = "Answer it from a live card: run %plan in the notebook.";

type Mode = "reading" | "server" | "offline" | "superseded";

/** Every card of the page that carries on through the server, to supersede when a newer one comes. */
const serverCards = new Set<ServerCard>();

/**
 * One live card per session: a new kernel's card of the same notebook and session takes
 * over from any card that carried on through the server.
 */
export function supersedeServerCards(path: string, session: string, newer: string): void {
  for (const card of serverCards) card.supersedeIf(path, session, newer);
}

export class ServerCard {
  private mode: Mode = "reading";
  private data: CardData;
  private error: string | null = null;
  private newer: string | null;
  private unwatch: (() => void) | null = null;
  private reading: Promise<void> | null = null;
  private readAgain = false;
  private disposed = false;
  private readonly actions: CardActions;

  constructor(
    private readonly host: HTMLElement,
    private readonly options: ServerCardOptions,
  ) {
    this.data = options.start;
    this.newer = options.supersededBy;
    this.actions = {
      approve: (hash) => void this.decide({ action: "approve", hash }),
      revise: (notes) => void this.decide({ action: "revise", notes }),
      off: () => void this.decide({ action: "off" }),
      comment: (stepId, text) => void this.comment({ step_id: stepId, text }),
      resolve: (commentId) => void this.comment({ resolve: commentId }),
      reopen: (commentId) => void this.comment({ reopen: commentId }),
    };
    if (this.newer !== null) {
      this.mode = "superseded";
    } else {
      serverCards.add(this);
      void this.read(true);
    }
    this.draw();
  }

  private get session(): string {
    return this.data.snapshot.session_id;
  }

  supersedeIf(path: string, session: string, newer: string): void {
    if (this.mode === "superseded" || path !== this.options.path() || session !== this.session) return;
    this.newer = newer;
    this.mode = "superseded";
    this.stop();
    this.draw();
  }

  dispose(): void {
    this.disposed = true;
    this.stop();
  }

  private stop(): void {
    serverCards.delete(this);
    this.unwatch?.();
    this.unwatch = null;
  }

  private draw(): void {
    if (this.disposed) return;
    const modelId = this.options.modelId;
    let frame: CardFrame;
    if (this.mode === "superseded") frame = { frozen: true, notice: supersededNotice(this.newer ?? ""), modelId };
    else if (this.mode === "offline") frame = { frozen: true, notice: KERNEL_GONE_NOTICE, modelId };
    else if (this.mode === "reading") frame = { frozen: true, notice: READING_NOTICE, modelId };
    else frame = { notice: SERVER_NOTICE, modelId, answerHint: ANSWER_HINT };
    renderCard(this.host, this.data, this.actions, this.mode === "server" ? this.error : null, frame);
  }

  /** Reads the card route; the first read tells whether the server extension is there. */
  private read(first = false): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = this.load(first).finally(() => {
      this.reading = null;
      if (this.readAgain) {
        this.readAgain = false;
        void this.read();
      }
    });
    return this.reading;
  }

  private async load(first: boolean): Promise<void> {
    const path = this.options.path();
    try {
      const data = await this.options.api.card({ path, session: this.session });
      if (this.disposed || this.mode === "superseded") return;
      // A refusal stays on the card until the plan moves on.
      if (data.snapshot.cursor !== this.data.snapshot.cursor) this.error = null;
      this.data = data;
      this.mode = "server";
      if (first) this.follow(path);
    } catch (error) {
      if (this.disposed || this.mode === "superseded") return;
      if (first) this.mode = "offline";
      else this.error = `The plan could not be read again: ${errorMessage(error)}`;
    }
    this.draw();
  }

  /** Every commit moves a session's cursor: read the card again when this one's moved. */
  private follow(path: string): void {
    this.unwatch = watchSessions(this.options.api, path, {
      sessions: (list) => {
        const summary = list.sessions.find((session) => session.session_id === this.session);
        if (summary && summary.cursor !== this.data.snapshot.cursor) void this.read();
      },
    });
  }

  private decide(decision: Decision): Promise<void> {
    return this.send((address) => this.options.api.decide(address, decision, "card"));
  }

  private comment(act: CommentAct): Promise<void> {
    return this.send((address) => this.options.api.comment(address, act, "card"));
  }

  private async send(request: (address: PlanAddress) => Promise<unknown>): Promise<void> {
    if (this.mode !== "server") return;
    try {
      await request({ path: this.options.path(), session: this.session });
      this.error = null;
    } catch (error) {
      // Refused (409 with the reason) or unreachable: one line on the card, nothing retried.
      this.error = errorMessage(error);
      this.draw();
      return;
    }
    await this.read();
  }
}
