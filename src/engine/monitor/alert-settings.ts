/**
 * The IRIS Host settings that drive alerts, read from an item's definition: `AlertOnError` (raise an
 * alert when the item fails a message; off by default, as in IRIS), `AlertGracePeriod` (seconds a
 * failure alert waits; a success of the item meanwhile cancels it), `InactivityTimeout` (seconds
 * without activity before the item is inactive and an alert is raised; 0 = never) and
 * `QueueCountAlert` (queued messages past which an alert is raised; 0 = never).
 */
import type { ItemDefinition } from '../../core/production.ts';

export interface AlertSettings {
  alertOnError: boolean;
  gracePeriodMs: number;
  inactivityTimeoutMs: number;
  queueCountAlert: number;
}

function hostSetting(item: ItemDefinition, name: string): string | undefined {
  return item.settings.find((setting) => setting.target === 'Host' && setting.name === name)?.value;
}

/** A non-negative number of the setting, 0 when absent or not a number (IRIS treats junk as unset). */
function amount(item: ItemDefinition, name: string): number {
  const value = Number(hostSetting(item, name) ?? 0);
  return Number.isFinite(value) && value > 0 ? value : 0;
}

export function alertSettingsOf(item: ItemDefinition): AlertSettings {
  const onError = (hostSetting(item, 'AlertOnError') ?? '').trim().toLowerCase();
  return {
    alertOnError: onError === '1' || onError === 'true',
    gracePeriodMs: amount(item, 'AlertGracePeriod') * 1000,
    inactivityTimeoutMs: amount(item, 'InactivityTimeout') * 1000,
    queueCountAlert: Math.floor(amount(item, 'QueueCountAlert')),
  };
}
