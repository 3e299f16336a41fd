/**
 * Routing rules in one namespace: rule classes stored with their versions (store.rules), compiled
 * once per version, tested on a message for the portal and the API, decided on by the routing
 * engine (`EnsLib.MsgRouter.RoutingEngine`), and their rule log read back from the event log.
 */
import { ConveyorError } from '../core/errors.ts';
import type { LogEntry } from '../core/log.ts';
import { checkName } from '../core/names.ts';
import type { RuleDecision, RuleInput } from '../core/routing-rule.ts';
import type { DtlDiagnostic } from '../dtl/index.ts';
import { checkRuleDefinition, compileRuleDefinition, type CompiledRuleDefinition } from '../rules/index.ts';
import type { Store, StoredRule } from '../store/store.ts';

/** An IRIS class name: dot-separated parts of letters and digits, each starting with a letter (`%` may lead). */
const CLASS_NAME = /^%?\p{L}[\p{L}\p{Nd}]*(?:\.\p{L}[\p{L}\p{Nd}]*)*$/u;

/** The event log's source class of rule log entries (the routing engine writes them, the API reads them). */
export const RULE_LOG_SOURCE_CLASS = 'Ens.Rule.Log';

export interface RuleSummary {
  name: string;
  version: number;
  updatedAt: number;
  /** The `context` of the `<ruleDefinition>` ('' when the stored text no longer parses). */
  context: string;
  ruleSets: number;
}

export interface RuleTestInput {
  /** The message class (`msgClass` constraint, `MsgClass`). */
  classname: string;
  /** The message body as JSON (`Document`). */
  json: unknown;
  /** The item the message comes from (`source` constraint, `Source`). */
  source: string;
  /** When the rule is evaluated (which rule set is in effect); default now. */
  at?: Date;
}

export class RuleService {
  private readonly compiledByName = new Map<string, CompiledRuleDefinition>();

  constructor(
    private readonly store: Store,
    private readonly namespace: string,
  ) {}

  async listRules(): Promise<RuleSummary[]> {
    return (await this.store.rules.list(this.namespace)).map((stored) => {
      let definition: CompiledRuleDefinition['definition'] | null = null;
      try {
        definition = this.compiled(stored).definition;
      } catch {
        // A stored rule that no longer compiles is listed with what the store knows.
      }
      return {
        name: stored.name,
        version: stored.version,
        updatedAt: stored.updatedAt,
        context: definition?.context ?? '',
        ruleSets: definition?.ruleSets.length ?? 0,
      };
    });
  }

  async getRule(name: string, version?: number): Promise<StoredRule> {
    const stored = await this.store.rules.get(this.namespace, name, version);
    if (!stored) {
      throw new ConveyorError(
        'ERR_RULE_NOT_FOUND',
        `Rule ${name}${version === undefined ? '' : ` version ${version}`} does not exist in namespace ${this.namespace}`,
      );
    }
    return stored;
  }

  /** Every version, oldest first. */
  ruleHistory(name: string): Promise<StoredRule[]> {
    return this.store.rules.history(this.namespace, name);
  }

  /** Validates (the class name must be `name`), then stores a new version; refused with its diagnostics when it has errors. */
  async putRule(name: string, source: string): Promise<StoredRule> {
    checkName('rule', name);
    if (/\s/.test(name)) throw new ConveyorError('ERR_INVALID_INPUT', `Invalid rule name: ${JSON.stringify(name)} contains white space`);
    // A rule is a class: a bare <ruleDefinition> stored under another kind of name could never be one.
    if (!CLASS_NAME.test(name)) {
      throw new ConveyorError(
        'ERR_INVALID_INPUT',
        `Invalid rule name: ${JSON.stringify(name)} is not a class name. A rule is named by its IRIS class name: dot-separated parts of letters and digits, each starting with a letter (e.g. Demo.OrderRules)`,
      );
    }
    const errors = this.checkRule(source, name).filter((d) => d.severity === 'error');
    if (errors.length > 0) {
      throw new ConveyorError('ERR_RULE', `Rule ${name} has errors: ${errors.map((d) => `${d.line}:${d.column}: ${d.message}`).join('; ')}`, {
        details: { diagnostics: errors },
      });
    }
    const className = compileRuleDefinition(source, { document: name }).definition.className;
    if (className !== null && className !== name) {
      throw new ConveyorError('ERR_RULE', `The document defines class ${className}, not ${name}: save it under ${className} or rename the class`, {
        details: { diagnostics: [{ document: name, line: 1, column: 1, severity: 'error', message: `class ${className} saved as ${name}` }] },
      });
    }
    const stored = await this.store.rules.put(this.namespace, name, source);
    this.compiledByName.delete(name);
    return stored;
  }

  async deleteRule(name: string): Promise<void> {
    await this.getRule(name);
    await this.store.rules.delete(this.namespace, name);
    this.compiledByName.delete(name);
  }

  /** Positioned problems of a rule document (empty when it compiles); never throws for a bad document. */
  checkRule(source: string, documentName = 'rule'): DtlDiagnostic[] {
    return checkRuleDefinition(source, documentName);
  }

  /** Which rule fires for a message, and why: a stored rule (by name) or a document under edit (source). */
  async testRule(rule: { name?: string; source?: string }, input: RuleTestInput): Promise<RuleDecision> {
    let compiled: CompiledRuleDefinition;
    if (rule.source !== undefined) compiled = compileRuleDefinition(rule.source, { document: rule.name ?? 'rule' });
    else if (rule.name !== undefined) compiled = await this.routingRule(rule.name);
    else throw new ConveyorError('ERR_INVALID_INPUT', 'Give the rule to test: its name or its source');
    const ruleInput: RuleInput = { document: input.json, messageClass: input.classname, source: input.source };
    return compiled.decide(ruleInput, input.at ?? new Date());
  }

  /** The latest version of a stored rule, compiled (once per version). */
  async routingRule(name: string): Promise<CompiledRuleDefinition> {
    return this.compiled(await this.getRule(name));
  }

  /** The rule log: entries the routing engines wrote, newest first; by rule class and session when given. */
  async ruleLog(query: { rule?: string; sessionId?: number; limit: number }): Promise<LogEntry[]> {
    const found: LogEntry[] = [];
    let beforeId: number | undefined;
    // The event log filters by text; the source class is checked here, page by page.
    for (let page = 0; page < 20 && found.length < query.limit; page++) {
      const entries = await this.store.log.search(this.namespace, {
        text: query.rule === undefined ? 'rule ' : `rule ${query.rule} `,
        limit: 200,
        ...(query.sessionId === undefined ? {} : { sessionId: query.sessionId }),
        ...(beforeId === undefined ? {} : { beforeId }),
      });
      found.push(...entries.filter((e) => e.sourceClass === RULE_LOG_SOURCE_CLASS));
      if (entries.length < 200) break;
      beforeId = entries.at(-1)!.id;
    }
    return found.slice(0, query.limit);
  }

  private compiled(stored: StoredRule): CompiledRuleDefinition {
    const cached = this.compiledByName.get(stored.name);
    if (cached && cached.version === stored.version) return cached;
    const compiled = compileRuleDefinition(stored.source, { document: stored.name, version: stored.version });
    this.compiledByName.set(stored.name, compiled);
    return compiled;
  }
}

/** What the API uses of a namespace's rules (`engine.namespace(name).rules`). */
export type RuleOperations = Pick<RuleService, 'listRules' | 'getRule' | 'ruleHistory' | 'putRule' | 'deleteRule' | 'checkRule' | 'testRule' | 'ruleLog'>;
