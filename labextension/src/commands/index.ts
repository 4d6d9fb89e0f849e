/**
 * The palette commands of jupyter-plans: enter and leave plan mode, approve the waiting
 * proposal after reading it, and show the Plan panel (also the notebook toolbar's button).
 */

import type { JupyterFrontEnd } from "@jupyterlab/application";
import { Notification } from "@jupyterlab/apputils";
import type { ICommandPalette } from "@jupyterlab/apputils";
import type { LabIcon } from "@jupyterlab/ui-components";
import type { ReadonlyPartialJSONObject } from "@lumino/coreutils";
import { errorMessage } from "../api";
import type { Decision, PlansApi } from "../api";
import { shortHash } from "../card/dom";
import { confirmApproval } from "./approve";

export const CommandIDs = {
  on: "jupyter-plans:on",
  off: "jupyter-plans:off",
  approve: "jupyter-plans:approve",
  openPanel: "jupyter-plans:open-panel",
} as const;

/** The commands that act on the active notebook, enabled only while there is one. */
export const NOTEBOOK_COMMANDS = [CommandIDs.on, CommandIDs.off, CommandIDs.approve] as const;

const CATEGORY = "Plan";

/** What the commands need from the application around them. */
export interface CommandContext {
  api: PlansApi;
  icon: LabIcon;
  /** The active notebook's path relative to the server root; null when none is active. */
  activePath(): string | null;
  /** Called when a command on the notebook at `path` is done, however it went (not when cancelled). */
  decided(path: string): void;
  showPanel(): void;
  showToolbarButton(): boolean;
}

/** A decision to send, and the session it is for (omitted: the file's current session). */
interface Intent {
  decision: Decision;
  session?: string;
}

function baseName(path: string): string {
  return path.split("/").pop() || path;
}

type Decide = (make: (path: string) => Promise<Intent | null>, done: (path: string) => string) => Promise<void>;

/** Runs a decision for the active notebook's current session and says how it went. */
function decider(context: CommandContext): Decide {
  return async (make, done) => {
    const path = context.activePath();
    if (path === null) return;
    try {
      const intent = await make(path);
      if (intent === null) return;
      await context.api.decide({ path, session: intent.session }, intent.decision, "palette");
      Notification.success(done(path), { autoClose: 4000 });
    } catch (error) {
      Notification.error(`${baseName(path)}: ${errorMessage(error)}`, { autoClose: 8000 });
    }
    context.decided(path);
  };
}

/** Approve: the waiting proposal shown first, then exactly the hash shown approved. */
function approveWaiting(api: PlansApi, decide: Decide): Promise<void> {
  let approved = "";
  return decide(
    async (path) => {
      const snapshot = await api.snapshot({ path });
      const hash = snapshot.pending_proposal_hash;
      if (!hash) {
        Notification.info(`${baseName(path)}: no proposal is waiting for a decision.`, { autoClose: 5000 });
        return null;
      }
      if (!(await confirmApproval(baseName(path), snapshot))) return null;
      approved = hash;
      // Exactly the hash shown, in the session read: if the agent re-submitted while the
      // dialog was open, the server refuses it and the refusal is shown, never retried.
      return { decision: { action: "approve", hash }, session: snapshot.session_id };
    },
    (path) => `${baseName(path)}: proposal ${shortHash(approved)} approved.`,
  );
}

export function addCommands(app: JupyterFrontEnd, context: CommandContext): void {
  const decide = decider(context);
  const hasNotebook = () => context.activePath() !== null;
  app.commands.addCommand(CommandIDs.on, {
    label: "Enter Plan Mode",
    caption: "The agent researches and proposes, and waits for your approval; a proposal still waiting is dropped",
    isEnabled: hasNotebook,
    execute: () =>
      decide(
        async () => ({ decision: { action: "on" } }),
        (path) => `${baseName(path)} is in plan mode.`,
      ),
  });
  app.commands.addCommand(CommandIDs.off, {
    label: "Leave Plan Mode",
    caption: "Back to default mode: a waiting proposal is set aside and the agent's current turn is cancelled",
    isEnabled: hasNotebook,
    execute: () =>
      decide(
        async () => ({ decision: { action: "off" } }),
        (path) => `${baseName(path)} left plan mode.`,
      ),
  });
  app.commands.addCommand(CommandIDs.approve, {
    label: "Approve the Waiting Proposal…",
    caption: "Show the proposal waiting in the active notebook's current plan session, and approve it",
    isEnabled: hasNotebook,
    execute: () => approveWaiting(context.api, decide),
  });
  app.commands.addCommand(CommandIDs.openPanel, {
    label: (args: ReadonlyPartialJSONObject) => (args.toolbar ? "Plan" : "Show the Plan Panel"),
    caption: "Show the plan of this notebook, and answer its proposal",
    icon: context.icon,
    isVisible: (args: ReadonlyPartialJSONObject) => !args.toolbar || context.showToolbarButton(),
    execute: () => {
      context.showPanel();
    },
  });
}

export function addToPalette(palette: ICommandPalette): void {
  for (const command of Object.values(CommandIDs)) palette.addItem({ command, category: CATEGORY });
}
