/** The settings of the Plan panel and its toolbar button, read from schema/plugin.json's values. */

import type { ISettingRegistry } from "@jupyterlab/settingregistry";
import type { FeedSettings } from "./feed";

export interface Settings extends FeedSettings {
  showToolbarButton: boolean;
}

export const DEFAULT_SETTINGS: Settings = { pollFallbackSeconds: 10, showToolbarButton: true };

/** The settings in force: a value the schema would refuse falls back to its default. */
export function readSettings(settings: ISettingRegistry.ISettings | null): Settings {
  if (!settings) return DEFAULT_SETTINGS;
  const seconds = Number(settings.composite.pollFallbackSeconds);
  return {
    pollFallbackSeconds: Number.isFinite(seconds) && seconds >= 1 ? seconds : DEFAULT_SETTINGS.pollFallbackSeconds,
    showToolbarButton: settings.composite.showToolbarButton !== false,
  };
}
