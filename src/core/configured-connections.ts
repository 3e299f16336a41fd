/**
 * The item → target pairs a production definition configures: the `TargetConfigName(s)` Host settings,
 * and the Host settings the item's class declares with IoP 4's `target()` (`isTarget`), each a comma
 * list of item names. GET /connections, the portal's diagram and validation read them.
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

export interface ConfiguredRoute {
  from: string;
  setting: string;
  targets: string[];
}

export function configuredRoutes(definition: ProductionDefinition, classes: ClassBinding[]): ConfiguredRoute[] {
  const declared = declaredTargets(classes);
  const routes: ConfiguredRoute[] = [];
  for (const item of definition.items) {
    for (const setting of item.settings) {
      if (setting.target !== 'Host' || !(routeSettings.has(setting.name) || declared.get(item.classname)?.has(setting.name))) continue;
      const targets = setting.value
        .split(',')
        .map((target) => target.trim())
        .filter(Boolean);
      routes.push({ from: item.name, setting: setting.name, targets });
    }
  }
  return routes;
}

export function configuredConnections(definition: ProductionDefinition, classes: ClassBinding[]): Array<{ from: string; to: string }> {
  return configuredRoutes(definition, classes).flatMap((route) => route.targets.map((to) => ({ from: route.from, to })));
}
