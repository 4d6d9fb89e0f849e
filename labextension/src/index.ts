/**
 * The JupyterLab plugins of jupyter-plans: the Plan side panel that follows the active
 * notebook, the palette commands and toolbar button, and the card outputs of notebooks.
 */

import { ILayoutRestorer } from "@jupyterlab/application";
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from "@jupyterlab/application";
import { ICommandPalette, Notification } from "@jupyterlab/apputils";
import { INotebookTracker, INotebookWidgetFactory } from "@jupyterlab/notebook";
import type { NotebookPanel, NotebookWidgetFactory } from "@jupyterlab/notebook";
import { IRenderMimeRegistry } from "@jupyterlab/rendermime";
import { ISettingRegistry } from "@jupyterlab/settingregistry";
import { LabIcon } from "@jupyterlab/ui-components";
import type { ReadonlyPartialJSONObject } from "@lumino/coreutils";
import { PlansApi } from "./api";
import { confirmApproval, shortProposalHash } from "./approve";
import type { Decision } from "./api";
import { LIVE_OR_SAVED_RANK, WIDGET_VIEW_MIME_TYPE, liveOrSavedFactory } from "./output";
import { PlanPanel } from "./sidebar";
import type { PanelSettings } from "./sidebar";

const PLUGIN_ID = "jupyter-plans:plugin";

const CommandIDs = {
  on: "jupyter-plans:on",
  off: "jupyter-plans:off",
  approve: "jupyter-plans:approve",
  openPanel: "jupyter-plans:open-panel",
} as const;

const CATEGORY = "Plan";

/** A decision to send, and the session it is for (omitted: the file's current session). */
interface Intent {
  decision: Decision;
  session?: string;
}

interface Settings extends PanelSettings {
  showToolbarButton: boolean;
}

const DEFAULTS: Settings = { pollFallbackSeconds: 10, showToolbarButton: true };

export const planIcon = new LabIcon({
  name: "jupyter-plans:plan",
  svgstr:
    '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">' +
    '<g class="jp-icon3" fill="none" stroke="#616161" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round">' +
    '<path d="M9 4H6.5A1.5 1.5 0 0 0 5 5.5v14A1.5 1.5 0 0 0 6.5 21h11a1.5 1.5 0 0 0 1.5-1.5v-14A1.5 1.5 0 0 0 17.5 4H15"/>' +
    '<rect x="9" y="2.5" width="6" height="3.2" rx="1"/>' +
    '<path d="M8.3 11l1.4 1.4 2.4-2.6M14 11.5h2.2M8.3 16.2l1.4 1.4 2.4-2.6M14 16.7h2.2"/>' +
    "</g></svg>",
});

function readSettings(settings: ISettingRegistry.ISettings | null): Settings {
  if (!settings) return DEFAULTS;
  const seconds = Number(settings.composite.pollFallbackSeconds);
  return {
    pollFallbackSeconds: Number.isFinite(seconds) && seconds >= 1 ? seconds : DEFAULTS.pollFallbackSeconds,
    showToolbarButton: settings.composite.showToolbarButton !== false,
  };
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function baseName(path: string): string {
  return path.split("/").pop() || path;
}

const panelPlugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: "The Plan side panel for the active notebook, with commands for plan mode.",
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ISettingRegistry, ICommandPalette, ILayoutRestorer],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    settingRegistry: ISettingRegistry | null,
    palette: ICommandPalette | null,
    restorer: ILayoutRestorer | null,
  ) => {
    const api = new PlansApi();
    let settings: Settings = DEFAULTS;
    const panel = new PlanPanel(api, () => settings);
    panel.id = "jupyter-plans-panel";
    panel.title.icon = planIcon;
    app.shell.add(panel, "right", { rank: 600 });
    restorer?.add(panel, "jupyter-plans-panel");

    const activePath = (): string | null => tracker.currentWidget?.context.path ?? null;

    /** Runs a decision for the active notebook's current session and says how it went. */
    const decide = async (make: (path: string) => Promise<Intent | null>, done: (path: string) => string) => {
      const path = activePath();
      if (path === null) return;
      try {
        const intent = await make(path);
        if (intent === null) return;
        await api.decide({ path, session: intent.session }, intent.decision);
        Notification.success(done(path), { autoClose: 4000 });
      } catch (error) {
        Notification.error(`${baseName(path)}: ${reason(error)}`, { autoClose: 8000 });
      }
      if (panel.notebook === path) void panel.refresh();
    };

    const hasNotebook = () => activePath() !== null;
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
      execute: () => {
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
          (path) => `${baseName(path)}: proposal ${shortProposalHash(approved)} approved.`,
        );
      },
    });
    app.commands.addCommand(CommandIDs.openPanel, {
      label: (args: ReadonlyPartialJSONObject) => (args.toolbar ? "Plan" : "Show the Plan Panel"),
      caption: "Show the plan of this notebook, and answer its proposal",
      icon: planIcon,
      isVisible: (args: ReadonlyPartialJSONObject) => !args.toolbar || settings.showToolbarButton,
      execute: () => {
        app.shell.activateById(panel.id);
      },
    });
    // Follow the active notebook, through renames too.
    let followed: NotebookPanel | null = null;
    const onPathChanged = () => {
      panel.notebook = followed?.context.path ?? null;
    };
    const follow = (notebook: NotebookPanel | null) => {
      followed?.context.pathChanged.disconnect(onPathChanged);
      followed = notebook;
      followed?.context.pathChanged.connect(onPathChanged);
      onPathChanged();
      for (const id of [CommandIDs.on, CommandIDs.off, CommandIDs.approve]) app.commands.notifyCommandChanged(id);
    };
    tracker.currentChanged.connect((_, notebook) => follow(notebook));
    follow(tracker.currentWidget);

    if (palette) {
      for (const command of Object.values(CommandIDs)) palette.addItem({ command, category: CATEGORY });
    }

    if (settingRegistry) {
      settingRegistry
        .load(PLUGIN_ID)
        .then((loaded) => {
          const apply = () => {
            settings = readSettings(loaded);
            panel.settingsChanged();
            app.commands.notifyCommandChanged(CommandIDs.openPanel);
          };
          loaded.changed.connect(apply);
          apply();
        })
        .catch((error) => console.error(`jupyter-plans: could not load the settings of ${PLUGIN_ID}`, error));
    }
  },
};

/**
 * Card outputs in notebooks: registered in each notebook's own registry as soon as the
 * notebook exists, before its outputs are drawn (see output.ts for why).
 */
const outputsPlugin: JupyterFrontEndPlugin<void> = {
  id: "jupyter-plans:outputs",
  description: "Shows a card output live when the kernel has its widget, and as saved otherwise.",
  autoStart: true,
  requires: [IRenderMimeRegistry, INotebookTracker],
  optional: [INotebookWidgetFactory],
  activate: (
    _app: JupyterFrontEnd,
    rendermime: IRenderMimeRegistry,
    tracker: INotebookTracker,
    notebookFactory: NotebookWidgetFactory.IFactory | null,
  ) => {
    const done = new WeakSet<NotebookPanel>();
    const register = (panel: NotebookPanel) => {
      if (done.has(panel)) return;
      done.add(panel);
      const factory = liveOrSavedFactory({
        registry: panel.content.rendermime,
        session: panel.sessionContext,
        unboundFactory: () => rendermime.getFactory(WIDGET_VIEW_MIME_TYPE),
      });
      panel.content.rendermime.addFactory(factory, LIVE_OR_SAVED_RANK);
    };
    // widgetCreated comes first, synchronously; the tracker covers notebooks made otherwise.
    notebookFactory?.widgetCreated.connect((_, panel) => register(panel));
    tracker.widgetAdded.connect((_, panel) => register(panel));
    tracker.forEach(register);
  },
};

export default [panelPlugin, outputsPlugin];
