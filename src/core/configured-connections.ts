/**
 * The item → target pairs a production definition configures: the `TargetConfigName(s)` Host settings,
 * and the Host settings the item's class declares with IoP 4's `target()` (`isTarget`), each a comma
 * list of item names. A declared target setting the item does not set runs with the class default,
 * so that default is a route too. GET /connections, the portal's diagram and validation read them.
 */
import type { ClassBinding } from './components.ts';
import type { ProductionDefinition } from './production.ts';

const routeSettings = new Set(['TargetConfigName', 'TargetConfigNames']);

/** Class name → the Host settings it declares with `target()`. */
export function declaredTargets(classes: ClassBinding[]): Map<string, Set<string>> {
  return new Map(
    classes.map((binding) => [binding.name, new Set(binding.settings.filter((setting) => setting.isTarget === true).map((setting) => setting.name))]),
  );
}

/** Class name → its target settings (declared with `target()`, or named TargetConfigName(s)) that have a class default. */
function defaultTargets(classes: ClassBinding[]): Map<string, Array<{ name: string; value: string }>> {
  return new Map(
    classes.map((binding) => [
      binding.name,
      binding.settings
        .filter(
          (setting) => (setting.isTarget === true || routeSettings.has(setting.name)) && setting.defaultValue !== null && setting.defaultValue.trim() !== '',
        )
        .map((setting) => ({ name: setting.name, value: setting.defaultValue ?? '' })),
    ]),
  );
}

function targetList(value: string): string[] {
  return value
    .split(',')
    .map((target) => target.trim())
    .filter(Boolean);
}

export interface ConfiguredRoute {
  from: string;
  setting: string;
  targets: string[];
}

export function configuredRoutes(definition: ProductionDefinition, classes: ClassBinding[]): ConfiguredRoute[] {
  const declared = declaredTargets(classes);
  const defaults = defaultTargets(classes);
  const routes: ConfiguredRoute[] = [];
  for (const item of definition.items) {
    const given = new Set<string>();
    for (const setting of item.settings) {
      if (setting.target !== 'Host' || !(routeSettings.has(setting.name) || declared.get(item.classname)?.has(setting.name))) continue;
      given.add(setting.name);
      routes.push({ from: item.name, setting: setting.name, targets: targetList(setting.value) });
    }
    for (const setting of defaults.get(item.classname) ?? []) {
      if (!given.has(setting.name)) routes.push({ from: item.name, setting: setting.name, targets: targetList(setting.value) });
    }
  }
  return routes;
}

export function configuredConnections(definition: ProductionDefinition, classes: ClassBinding[]): Array<{ from: string; to: string }> {
  return configuredRoutes(definition, classes).flatMap((route) => route.targets.map((to) => ({ from: route.from, to })));
}
