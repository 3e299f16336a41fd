/**
 * Beyond the spec: validate, diff, plan, apply and roll back a production definition (declared in
 * src/core/contract/definition-routes.ts, documented in docs/api.md "Production changes"). The plan is
 * computed here from the stored definition, so what the portal shows before applying is what apply
 * checks: with the plan's source fingerprint, apply refuses when the stored definition moved since.
 */
import type { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import { builtinClasses } from '../engine/builtin/index.ts';
import type { ClassBinding } from '../core/components.ts';
import { configuredRoutes } from '../core/configured-connections.ts';
import * as contract from '../core/contract/definition-routes.ts';
import { canonicalJson, diffDefinitions, planOperations, withoutDestructiveChanges, type PlanOperation } from '../core/definition-changes.ts';
import { ConveyorError } from '../core/errors.ts';
import { definitionFromIopExport, isIopExport } from '../core/iop-export.ts';
import type { ProductionDefinition } from '../core/production.ts';
import type { EngineOperations, NamespaceOperations } from '../engine/namespace-operations.ts';
import { exportJson } from '../core/export-json.ts';
import { checkSchedules, definitionFromJson } from './portal-definition.ts';
import { namespaceOf } from './request-input.ts';
import { contractScope, serve, type RouteCatalog } from './route-catalog.ts';

/** SHA-256 of the canonical JSON of the definition in the export shape; '' for none. */
export function fingerprint(definition: ProductionDefinition | null): string {
  return definition === null
    ? ''
    : createHash('sha256')
        .update(canonicalJson(exportJson(definition)))
        .digest('hex');
}

async function storedOrNull(namespace: NamespaceOperations, name: string): Promise<ProductionDefinition | null> {
  try {
    return await namespace.getDefinition(name);
  } catch (error) {
    if (error instanceof ConveyorError && error.code === 'ERR_PRODUCTION_NOT_FOUND') return null;
    throw error;
  }
}

/** The sent definition in either form; an item's category absent from the export shape is kept from the stored one. */
async function desiredOf(namespace: NamespaceOperations, sent: unknown): Promise<{ desired: ProductionDefinition; current: ProductionDefinition | null }> {
  if (isIopExport(sent)) {
    const desired = checkSchedules(definitionFromIopExport(sent));
    return { desired, current: await storedOrNull(namespace, desired.name) };
  }
  // A definition without its item list would plan the deletion of every item: the list is required.
  if (typeof sent !== 'object' || sent === null || !Array.isArray((sent as { items?: unknown }).items)) {
    throw new ConveyorError('ERR_INVALID_INPUT', 'definition: items must be an array (the export shape), or send IoP\'s form {"<Name>": {"@Name": …}}');
  }
  const name = 'name' in sent && typeof sent.name === 'string' ? sent.name : '';
  const current = name ? await storedOrNull(namespace, name) : null;
  return { desired: definitionFromJson(sent, current), current };
}

interface Issue {
  kind: string;
  severity: 'error' | 'warning';
  path: string;
  message: string;
  suggestion?: string;
}

/** What would keep the desired definition from running as meant: unknown classes, routes to missing items. */
function validationIssues(desired: ProductionDefinition, classes: ClassBinding[], namespace: string): Issue[] {
  const registered = new Set(classes.map((binding) => binding.name));
  const routes = configuredRoutes(desired, classes);
  const itemNames = new Set(desired.items.map((item) => item.name));
  const issues: Issue[] = [];
  for (const item of desired.items) {
    if (!registered.has(item.classname) && !builtinClasses.has(item.classname)) {
      issues.push({
        kind: 'class',
        // A disabled item runs nothing, so its unknown class only matters once it is enabled.
        severity: item.enabled ? 'error' : 'warning',
        path: `items.${item.name}.class_name`,
        message: `Class ${item.classname} is not registered in namespace ${namespace}.`,
        suggestion: 'Migrate the package that defines it (cli -m settings.py), or correct the class name.',
      });
    }
    for (const { setting, targets } of routes.filter((route) => route.from === item.name)) {
      for (const target of targets.filter((name) => !itemNames.has(name))) {
        issues.push({
          kind: 'route',
          severity: 'warning',
          path: `items.${item.name}.settings.Host.${setting}`,
          message: `Target setting references missing production item '${target}'.`,
          suggestion: `Add a production item named '${target}', or update/remove this target setting.`,
        });
      }
    }
  }
  return issues;
}

interface Plan {
  id: string;
  production: string;
  namespace: string;
  exists: boolean;
  source_fingerprint: string;
  desired_fingerprint: string;
  has_changes: boolean;
  operations: PlanOperation[];
  issues: Issue[];
}

async function planFor(namespace: NamespaceOperations, desired: ProductionDefinition, current: ProductionDefinition | null): Promise<Plan> {
  const operations = planOperations(diffDefinitions(current, desired));
  const source = fingerprint(current);
  const target = fingerprint(desired);
  const id = createHash('sha256')
    .update(canonicalJson({ production: desired.name, source, desired: target, operations }))
    .digest('hex');
  const issues = validationIssues(desired, await namespace.classes(), namespace.name);
  return {
    id,
    production: desired.name,
    namespace: namespace.name,
    exists: current !== null,
    source_fingerprint: source,
    desired_fingerprint: target,
    has_changes: current === null || operations.length > 0,
    operations,
    issues,
  };
}

/** Updates the running production when it is this one; a failed update leaves the stored definition applied. */
async function updateIfRunning(namespace: NamespaceOperations, production: string): Promise<{ updated_runtime: boolean; update_error?: string }> {
  const status = await namespace.status();
  if (status.status !== 'running' || status.production !== production) return { updated_runtime: false };
  try {
    await namespace.update();
    return { updated_runtime: true };
  } catch (error) {
    return { updated_runtime: false, update_error: error instanceof Error ? error.message : String(error) };
  }
}

export function registerDefinitionRoutes(root: FastifyInstance, engine: EngineOperations, catalog: RouteCatalog | null): void {
  const scope = contractScope(root);

  serve(scope, catalog, contract.validate, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const { desired } = await desiredOf(namespace, request.body.definition);
    const issues = validationIssues(desired, await namespace.classes(), namespace.name);
    return { production: desired.name, has_issues: issues.length > 0, issues };
  });

  serve(scope, catalog, contract.diff, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const { desired, current } = await desiredOf(namespace, request.body.definition);
    const changes = diffDefinitions(current, desired);
    return { production: desired.name, has_changes: current === null || changes.length > 0, changes };
  });

  serve(scope, catalog, contract.plan, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const { desired, current } = await desiredOf(namespace, request.body.definition);
    return planFor(namespace, desired, current);
  });

  serve(scope, catalog, contract.apply, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const { desired, current } = await desiredOf(namespace, request.body.definition);
    const plan = await planFor(namespace, desired, current);
    const allowDestructive = request.body.allow_destructive === true;
    const expected = request.body.source_fingerprint;
    const blocked = plan.operations.filter((operation) => operation.risk === 'destructive');
    // IoP's apply skips what it may not do and applies the rest; the result is still one write.
    const skipped = request.body.skip_blocked === true && !allowDestructive ? blocked : [];
    const skippedIds = skipped.map((operation) => operation.id);
    if (current !== null && skipped.length > 0 && skipped.length === plan.operations.length) {
      // Nothing left to apply: IoP writes nothing then, and neither does Conveyor (no rollback point either).
      const stored = fingerprint(current);
      return {
        production: desired.name,
        plan_id: plan.id,
        applied: 0,
        destructive: 0,
        skipped: skippedIds,
        previous_fingerprint: stored,
        fingerprint: stored,
        updated_runtime: false,
      };
    }
    const written = current !== null && skipped.length > 0 ? withoutDestructiveChanges(current, desired) : desired;
    const { previous } = await namespace.applyDefinition(written, (stored) => {
      // Checked again at the write: the stored definition may have moved since the plan above.
      if (fingerprint(stored) !== plan.source_fingerprint || (expected !== undefined && expected !== plan.source_fingerprint)) {
        throw new ConveyorError(
          'ERR_DEFINITION_CHANGED',
          `Production ${desired.name} changed since the plan was made (its fingerprint is ${fingerprint(stored) || 'none'})`,
        );
      }
      if (blocked.length > skipped.length && !allowDestructive) {
        throw new ConveyorError(
          'ERR_CHANGE_BLOCKED',
          `The plan for ${desired.name} holds ${blocked.length} destructive operation(s): ${blocked.map((op) => `${op.id} ${op.path}`).join(', ')}; nothing was applied`,
          { hint: 'apply with allow_destructive: true (cli --allow-destructive) if they are intended, or skip them with skip_blocked: true' },
        );
      }
    });
    const runtime = await updateIfRunning(namespace, desired.name);
    return {
      production: desired.name,
      plan_id: plan.id,
      applied: plan.operations.length - skipped.length,
      destructive: blocked.length - skipped.length,
      skipped: skippedIds,
      previous_fingerprint: fingerprint(previous),
      fingerprint: skipped.length > 0 ? fingerprint(written) : plan.desired_fingerprint,
      ...runtime,
    };
  });

  serve(scope, catalog, contract.rollback, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const production = request.body.production;
    const previous = await namespace.previousDefinition(production);
    if (previous === null)
      throw new ConveyorError('ERR_NO_PREVIOUS_DEFINITION', `No applied change of production ${production} is recorded in namespace ${namespace.name}`);
    const plan = await planFor(namespace, previous, await storedOrNull(namespace, production));
    const { previous: replaced } = await namespace.applyDefinition(previous, (current) => {
      if (fingerprint(current) !== plan.source_fingerprint)
        throw new ConveyorError('ERR_DEFINITION_CHANGED', `Production ${production} changed during the rollback; retry it`);
    });
    const runtime = await updateIfRunning(namespace, production);
    return {
      production,
      plan_id: plan.id,
      applied: plan.operations.length,
      destructive: plan.operations.filter((operation) => operation.risk === 'destructive').length,
      skipped: [],
      previous_fingerprint: fingerprint(replaced),
      fingerprint: plan.desired_fingerprint,
      ...runtime,
    };
  });

  serve(scope, catalog, contract.previous, async (request) => {
    const namespace = await namespaceOf(request, engine);
    const previous = await namespace.previousDefinition(request.query.production);
    return { production: request.query.production, previous: previous === null ? null : exportJson(previous) };
  });
}
