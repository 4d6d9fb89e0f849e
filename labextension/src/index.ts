/**
 * The JupyterLab plugins of jupyter-plans: the Plan side panel that follows the active
 * notebook, the palette commands and toolbar button, and the card outputs of notebooks.
 */

import { ILayoutRestorer } from "@jupyterlab/application";
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from "@jupyterlab/application";
import { ICommandPalette } from "@jupyterlab/apputils";
import { INotebookTracker, INotebookWidgetFactory } from "@jupyterlab/notebook";
import type { NotebookPanel, NotebookWidgetFactory } from "@jupyterlab/notebook";
import { IRenderMimeRegistry } from "@jupyterlab/rendermime";
import { ISettingRegistry } from "@jupyterlab/settingregistry";
import { PlansApi } from "./api";
import { CommandIDs, NOTEBOOK_COMMANDS, addCommands, addToPalette } from "./commands";
import { answerCellLinks } from "./mime/cells";
import { LIVE_OR_SAVED_RANK, WIDGET_VIEW_MIME_TYPE, liveOrSavedFactory } from "./mime/live";
import { PlanPanel } from "./panel";
import { planIcon } from "./panel/icon";
import { DEFAULT_SETTINGS, readSettings } from "./panel/settings";
import type { Settings } from "./panel/settings";

export { planIcon };

const PLUGIN_ID = "jupyter-plans:plugin";

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
    let settings: Settings = DEFAULT_SETTINGS;
    const panel = new PlanPanel(api, () => settings);
    panel.id = "jupyter-plans-panel";
    panel.title.icon = planIcon;
    app.shell.add(panel, "right", { rank: 600 });
    restorer?.add(panel, "jupyter-plans-panel");
    // The panel's links to cells lead into the notebook it shows, brought to the front.
    answerCellLinks(
      panel.node,
      () => tracker.find((notebook) => notebook.context.path === panel.notebook) ?? null,
      (notebook) => app.shell.activateById(notebook.id),
    );

    addCommands(app, {
      api,
      icon: planIcon,
      activePath: () => tracker.currentWidget?.context.path ?? null,
      decided: (path) => {
        if (panel.notebook === path) void panel.refresh();
      },
      showPanel: () => app.shell.activateById(panel.id),
      showToolbarButton: () => settings.showToolbarButton,
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
      for (const id of NOTEBOOK_COMMANDS) app.commands.notifyCommandChanged(id);
    };
    tracker.currentChanged.connect((_, notebook) => follow(notebook));
    follow(tracker.currentWidget);

    if (palette) addToPalette(palette);

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
 * notebook exists, before its outputs are drawn (see mime/live.ts for why); their links to
 * cells lead into that notebook.
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
    const api = new PlansApi();
    const done = new WeakSet<NotebookPanel>();
    const register = (panel: NotebookPanel) => {
      if (done.has(panel)) return;
      done.add(panel);
      const factory = liveOrSavedFactory({
        registry: panel.content.rendermime,
        session: panel.sessionContext,
        unboundFactory: () => rendermime.getFactory(WIDGET_VIEW_MIME_TYPE),
        path: () => panel.context.path,
        api,
      });
      panel.content.rendermime.addFactory(factory, LIVE_OR_SAVED_RANK);
      // The links to cells of the cards in its outputs (live, saved or carried on) lead here.
      const stop = answerCellLinks(panel.node, () => panel);
      panel.disposed.connect(stop);
    };
    // widgetCreated comes first, synchronously; the tracker covers notebooks made otherwise.
    notebookFactory?.widgetCreated.connect((_, panel) => register(panel));
    tracker.widgetAdded.connect((_, panel) => register(panel));
    tracker.forEach(register);
  },
};

export default [panelPlugin, outputsPlugin];
