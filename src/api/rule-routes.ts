/**
 * The routing rule routes (declared in src/core/contract/rule-routes.ts): rule classes of the
 * request's namespace listed, read, stored, deleted, compiled and tested on a message, and the rule
 * log. Diagnostics lose their document name (the route names the rule already).
 */
import type { FastifyInstance } from 'fastify';
import * as routes from '../core/contract/rule-routes.ts';
import { ConveyorError } from '../core/errors.ts';
import type { DtlDiagnostic } from '../dtl/index.ts';
import type { EngineOperations } from '../engine/namespace-operations.ts';
import type { RuleOperations } from '../engine/rule-service.ts';
import { logEntryJson } from './engine-json.ts';
import { namespaceOf, type NamespaceCarrier } from './request-input.ts';
import { contractScope, serve, type RouteCatalog } from './route-catalog.ts';
import { given } from './spec-routes.ts';

function positioned(diagnostics: DtlDiagnostic[]): { line: number; column: number; severity: 'error' | 'warning'; message: string }[] {
  return diagnostics.map(({ line, column, severity, message }) => ({ line, column, severity, message }));
}

function when(text: string | undefined): Date | undefined {
  if (text === undefined || text === '') return undefined;
  const at = new Date(text);
  if (Number.isNaN(at.getTime()))
    throw new ConveyorError('ERR_INVALID_INPUT', `at must be a date and time (ISO 8601, e.g. 2026-01-31T12:00:00), found ${JSON.stringify(text)}`);
  return at;
}

export function registerRuleRoutes(root: FastifyInstance, engine: EngineOperations, catalog: RouteCatalog | null): void {
  const scope = contractScope(root);
  const rulesOf = async (request: NamespaceCarrier): Promise<RuleOperations> => (await namespaceOf(request, engine)).rules;

  serve(scope, catalog, routes.listRules, async (request) => ({ rules: await (await rulesOf(request)).listRules() }));

  serve(scope, catalog, routes.ruleLog, async (request) => {
    const rules = await rulesOf(request);
    const { rule, session, limit } = request.query;
    const entries = await rules.ruleLog({
      limit: limit ?? 100,
      ...(given(rule) === undefined ? {} : { rule: rule! }),
      ...(session === undefined ? {} : { sessionId: session }),
    });
    return { entries: entries.map(logEntryJson) };
  });

  serve(scope, catalog, routes.getRule, async (request) => {
    const rules = await rulesOf(request);
    const stored = await rules.getRule(request.params.name, request.query.version);
    const history = await rules.ruleHistory(request.params.name);
    return { ...stored, history: history.map(({ version, updatedAt }) => ({ version, updatedAt })) };
  });

  serve(scope, catalog, routes.putRule, async (request) => (await rulesOf(request)).putRule(request.params.name, request.body.source));

  serve(scope, catalog, routes.deleteRule, async (request) => {
    await (await rulesOf(request)).deleteRule(request.params.name);
    return { deleted: request.params.name };
  });

  serve(scope, catalog, routes.compileRule, async (request) => {
    const diagnostics = (await rulesOf(request)).checkRule(request.body.source);
    return { ok: !diagnostics.some((d) => d.severity === 'error'), diagnostics: positioned(diagnostics) };
  });

  serve(scope, catalog, routes.testRule, async (request) => {
    const rules = await rulesOf(request);
    const { classname, json, from, at } = request.body;
    const name = given(request.body.name);
    const source = given(request.body.source);
    if (!name && !source) throw new ConveyorError('ERR_INVALID_INPUT', 'Give name (a stored rule class) or source (a rule class text) to test');
    const moment = when(at);
    return rules.testRule(
      { ...(name === undefined ? {} : { name }), ...(source === undefined ? {} : { source }) },
      { classname, json: json ?? {}, source: from ?? '', ...(moment === undefined ? {} : { at: moment }) },
    );
  });
}
