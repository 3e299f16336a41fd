/**
 * Beyond the spec, IoP 4's cli options for bindings, queues and production plans (iop4-reference §7.1),
 * with IoP's spelling and output: `--bindings [--unused]`, `--unbind CLASS`, `-q/--queue [PROD]`,
 * `--plan FILE [--production P] [--out PATH]`, `--review-plan FILE`, `--apply-plan FILE --settings S
 * [--production P] [--allow-destructive]`, `--verify-plan FILE [--production P]`, `--rollback-backup PROD`.
 * The desired production is read from the settings file's PRODUCTIONS by python3 on this machine (as
 * IoP's cli imports it), in local and remote mode alike; the server plans and applies.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import * as components from '../core/contract/component-routes.ts';
import * as changes from '../core/contract/definition-routes.ts';
import { ConveyorError } from '../core/errors.ts';
import { effectiveDefault, type CommandContext } from './context.ts';
import { answerMarker, runLocalPython } from './local-python.ts';
import { toJson } from './output-format.ts';

// Prints the settings file's PRODUCTIONS as JSON in IoP's export form; Production objects via to_dict(),
// a class-valued @ClassName as the item name it registers under (what the migration does).
const readProductionsScript = `
import inspect, json, sys
from conveyor_migrate.script import load_settings
settings = load_settings(sys.argv[1])
out = []
for entry in getattr(settings, 'PRODUCTIONS', None) or []:
    entry = entry.to_dict() if hasattr(entry, 'to_dict') else entry
    for body in entry.values() if isinstance(entry, dict) else []:
        items = body.get('Item') or [] if isinstance(body, dict) else []
        for item in [items] if isinstance(items, dict) else items:
            if isinstance(item, dict) and inspect.isclass(item.get('@ClassName')):
                item['@ClassName'] = item.get('@Name')
    out.append(entry)
sys.stdout.write(${JSON.stringify(answerMarker)} + json.dumps(out))
`;

type IopForm = Record<string, { '@Name'?: string }>;

/** The productions of a settings file, in IoP's export form. */
export function readSettingsProductions(settingsPath: string, env: Readonly<Record<string, string | undefined>>): IopForm[] {
  return JSON.parse(runLocalPython(readProductionsScript, [settingsPath], env, `Reading PRODUCTIONS of ${settingsPath}`)) as IopForm[];
}

function nameOf(production: IopForm): string {
  const [key, body] = Object.entries(production)[0] ?? ['', {}];
  return body['@Name'] || key;
}

/** IoP's choice: the named production, or the only one. */
export function pickProduction(productions: IopForm[], wanted: string | undefined, settingsPath: string): IopForm {
  if (wanted !== undefined) {
    const found = productions.find((production) => nameOf(production) === wanted);
    if (!found)
      throw new ConveyorError(
        'ERR_INVALID_INPUT',
        `Production ${wanted} is not in the PRODUCTIONS of ${settingsPath} (${productions.map(nameOf).join(', ') || 'none'})`,
      );
    return found;
  }
  if (productions.length === 1) return productions[0] as IopForm;
  if (productions.length === 0) throw new ConveyorError('ERR_INVALID_INPUT', `${settingsPath} declares no PRODUCTIONS`);
  throw new ConveyorError(
    'ERR_INVALID_INPUT',
    `Production name is required when settings.py contains multiple productions (${productions.map(nameOf).join(', ')}).`,
  );
}

interface PlanJson {
  id: string;
  production: string;
  namespace: string;
  source_fingerprint: string;
  desired_fingerprint: string;
  operations: Array<{ id: string; op_type: string; path: string; risk: string; reason?: string }>;
}

/** IoP's plan text: `Production change plan: P`, `  id:`, `  namespace:`, then the operations. */
export function planText(plan: PlanJson): string {
  const lines = [`Production change plan: ${plan.production}`, `  id: ${plan.id}`];
  if (plan.namespace) lines.push(`  namespace: ${plan.namespace}`);
  if (plan.operations.length === 0) lines.push('  no changes');
  else {
    lines.push('  operations:');
    for (const op of plan.operations) lines.push(`    ${op.id} ${op.op_type} ${op.path} [${op.risk}]${op.reason ? `: ${op.reason}` : ''}`);
  }
  return lines.join('\n');
}

function settingsFile(ctx: CommandContext, path: string): string {
  return resolve(ctx.io.cwd, path);
}

function readPlanFile(path: string): PlanJson {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConveyorError('ERR_INVALID_INPUT', `Cannot read the plan ${path}: ${(error as Error).message}`);
  }
  const plan = parsed as Partial<PlanJson>;
  if (typeof plan.id !== 'string' || typeof plan.production !== 'string' || !Array.isArray(plan.operations)) {
    throw new ConveyorError('ERR_INVALID_INPUT', `${path} is not a production change plan (id, production and operations are needed)`);
  }
  return plan as PlanJson;
}

export async function bindingsAction({ command, client, io }: CommandContext): Promise<void> {
  io.out(toJson(await client.call(components.bindings, { query: command.unused ? { unused: '1' } : {} })));
}

export async function unbindAction({ command, client, io }: CommandContext): Promise<void> {
  await client.call(components.unbind, { query: { class: command.value! } });
  io.out(`Removed binding ${command.value}.`);
}

export async function queueAction({ command, client, io }: CommandContext): Promise<void> {
  const production = command.value ?? (await client.getDefault());
  if (!production) throw new ConveyorError('ERR_INVALID_INPUT', 'no production name provided and no default production is defined.');
  io.out(toJson(await client.call(components.queues, { query: { production } })));
}

export async function planAction(ctx: CommandContext): Promise<void> {
  const { command, client, io } = ctx;
  const path = settingsFile(ctx, command.value!);
  const desired = pickProduction(readSettingsProductions(path, io.env), command.production, path);
  const plan = await client.call(changes.plan, { body: { definition: desired } });
  if (command.out) {
    const out = resolve(io.cwd, command.out);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(plan, null, 2)}\n`);
    io.out(`Production change plan written to ${command.out}`);
  } else io.out(planText(plan));
}

export async function reviewPlanAction(ctx: CommandContext): Promise<void> {
  ctx.io.out(planText(readPlanFile(resolve(ctx.io.cwd, ctx.command.value!))));
}

export async function applyPlanAction(ctx: CommandContext): Promise<void> {
  const { command, client, io } = ctx;
  if (!command.settings) throw new ConveyorError('ERR_USAGE', '--apply-plan requires --settings.');
  const plan = readPlanFile(resolve(io.cwd, command.value!));
  const path = settingsFile(ctx, command.settings);
  const desired = pickProduction(readSettingsProductions(path, io.env), command.production ?? plan.production, path);
  // The server re-plans; the stored definition must still be the plan's source, and the change the planned one.
  const now = await client.call(changes.plan, { body: { definition: desired } });
  if (now.id !== plan.id) {
    throw new ConveyorError(
      'ERR_INVALID_INPUT',
      `${command.settings} no longer gives the plan ${plan.id} (it gives ${now.id}); make the plan again and review it`,
    );
  }
  // As IoP's --apply-plan: without --allow-destructive the safe operations are applied and the destructive ones skipped.
  const result = await client.call(changes.apply, {
    body: {
      definition: desired,
      source_fingerprint: plan.source_fingerprint,
      ...(command.allowDestructive ? { allow_destructive: true } : { skip_blocked: true }),
    },
  });
  io.out(applyText(result, plan.operations));
}

/**
 * `--verify-plan PLAN [--production P]`: whether the stored production is now the plan's desired one
 * (its fingerprint). Conveyor applies a plan whole, so every operation converged or none did (residual).
 */
export async function verifyPlanAction(ctx: CommandContext): Promise<void> {
  const { command, client, io } = ctx;
  const plan = readPlanFile(resolve(io.cwd, command.value!));
  const production = command.production ?? plan.production;
  const stored = await client.exportProduction(production);
  // The server fingerprints the stored definition: planning it against itself gives its fingerprint.
  const { source_fingerprint: now } = await client.call(changes.plan, { body: { definition: stored } });
  const converged = now === plan.desired_fingerprint;
  const lines = [
    `Production verify result: ${production}`,
    `  plan: ${plan.id}`,
    `  success: ${converged}`,
    `  converged: ${converged ? plan.operations.length : 0}`,
    '  failed: 0',
    `  residual: ${converged ? 0 : plan.operations.length}`,
  ];
  if (!converged && plan.operations.length > 0) lines.push('  residual operations:', ...plan.operations.map((op) => `    ${op.id} ${op.path}`));
  io.out(lines.join('\n'));
}

export async function rollbackAction({ command, client, io }: CommandContext): Promise<void> {
  const production = command.value ?? (await effectiveDefault(client));
  const result = await client.call(changes.rollback, { body: { production } });
  io.out(applyText(result, []));
}

function applyText(
  result: { production: string; plan_id: string; applied: number; skipped: string[]; updated_runtime: boolean; update_error?: string },
  operations: PlanJson['operations'],
): string {
  const skipped = new Set(result.skipped);
  const lines = [
    `Production apply result: ${result.production}`,
    `  plan: ${result.plan_id}`,
    `  applied: ${result.applied}, skipped: ${skipped.size}, failed: 0`,
  ];
  if (operations.length > 0)
    lines.push('  operations:', ...operations.map((op) => `    ${op.id} ${op.op_type}: ${skipped.has(op.id) ? 'skipped' : 'applied'}`));
  lines.push(`  runtime: ${result.updated_runtime ? 'updated' : result.update_error ? `not updated: ${result.update_error}` : 'not running'}`);
  return lines.join('\n');
}
