/**
 * The command line of `cli` (spec "Command-line client"): options parsed with commander, whose
 * `[value]` options behave like argparse `nargs='?'` (`-d` prints, `-d NAME` sets). Exactly one action
 * per command; everything malformed is a ConveyorError ERR_USAGE (exit 2).
 */
import { Command, CommanderError, Option } from 'commander';
import { ConveyorError } from '../core/errors.ts';

export const actions = [
  'help',
  'default',
  'list',
  'start',
  'stop',
  'kill',
  'restart',
  'update',
  'status',
  'migrate',
  'export',
  'version',
  'log',
  'init',
  'test',
  'importSchema',
  'queue',
  'bindings',
  'unbind',
  'plan',
  'reviewPlan',
  'applyPlan',
  'verifyPlan',
  'rollbackBackup',
] as const;

export type Action = (typeof actions)[number];

export interface SchemaImportArgs {
  path: string;
  package: string;
  name: string;
}

export interface ParsedCommand {
  action: Action;
  /** The value of the action's option when one was given (`-d NAME`, `-s NAME`, `-m PATH`, `-e NAME`, `-i DIR`, `-t NAME`). */
  value?: string;
  /** `-L N`: print the last N entries and end. */
  logCount?: number;
  detach: boolean;
  classname?: string;
  body?: string;
  namespace?: string;
  remoteSettings?: string;
  forceLocal: boolean;
  schemaImport?: SchemaImportArgs;
  /** IoP 4's plan options (plan-actions.ts): `--unused`, `--production P`, `--out PATH`, `--settings S`, `--allow-destructive`. */
  unused?: boolean;
  production?: string;
  out?: string;
  settings?: string;
  allowDestructive?: boolean;
  /** `-m PATH --strict-production-validation` (IoP 4): a production with validation issues refuses the migration. */
  strictProductionValidation?: boolean;
  /** `-e --format json|python|class|graph|mermaid` (IoP 4). */
  format?: string;
}

// Option attribute → action, in the order the flags are reported when two are given.
const actionOptions: Record<string, Action> = {
  help: 'help',
  default: 'default',
  list: 'list',
  start: 'start',
  stop: 'stop',
  kill: 'kill',
  restart: 'restart',
  update: 'update',
  status: 'status',
  migrate: 'migrate',
  migrateUpper: 'migrate',
  export: 'export',
  version: 'version',
  log: 'log',
  init: 'init',
  test: 'test',
  importSchema: 'importSchema',
  queue: 'queue',
  bindings: 'bindings',
  unbind: 'unbind',
  plan: 'plan',
  reviewPlan: 'reviewPlan',
  applyPlan: 'applyPlan',
  verifyPlan: 'verifyPlan',
  rollbackBackup: 'rollbackBackup',
};

const flagNames: Record<string, string> = {
  help: '-h',
  default: '-d',
  list: '-l',
  start: '-s',
  stop: '-S',
  kill: '-k',
  restart: '-r',
  update: '-u',
  status: '-x',
  migrate: '-m',
  migrateUpper: '-M',
  export: '-e',
  version: '-v',
  log: '-L',
  init: '-i',
  test: '-t',
  importSchema: '--import-schema',
  queue: '-q',
  bindings: '--bindings',
  unbind: '--unbind',
  plan: '--plan',
  reviewPlan: '--review-plan',
  applyPlan: '--apply-plan',
  verifyPlan: '--verify-plan',
  rollbackBackup: '--rollback-backup',
};

/** IoP 4's modifiers and the actions they go with. */
const planModifiers: Array<{
  key: 'unused' | 'production' | 'out' | 'settings' | 'allowDestructive' | 'format' | 'strictProductionValidation';
  flag: string;
  actions: Action[];
}> = [
  { key: 'format', flag: '--format', actions: ['export'] },
  { key: 'unused', flag: '--unused', actions: ['bindings'] },
  { key: 'production', flag: '--production', actions: ['plan', 'applyPlan', 'verifyPlan'] },
  { key: 'out', flag: '--out', actions: ['plan'] },
  { key: 'settings', flag: '--settings', actions: ['applyPlan'] },
  { key: 'allowDestructive', flag: '--allow-destructive', actions: ['applyPlan'] },
  { key: 'strictProductionValidation', flag: '--strict-production-validation', actions: ['migrate'] },
];

function buildParser(): Command {
  const program = new Command('cli');
  program
    .helpOption(false)
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} })
    .allowExcessArguments(false)
    .option('-h, --help')
    .option('-d, --default [name]')
    .option('-l, --list')
    .option('-s, --start [name]')
    .option('-D, --detach')
    .option('-S, --stop')
    .option('-k, --kill')
    .option('-r, --restart')
    .option('-u, --update')
    .option('-x, --status')
    .option('-m, --migrate <path>')
    // -M is the spec's alias of -m; commander needs a long name for a second option, kept out of the help.
    .addOption(new Option('-M, --migrate-upper <path>').hideHelp())
    .option('-e, --export [name]')
    .option('-v, --version')
    .option('-L, --log [count]')
    .option('-i, --init [dir]')
    .option('-t, --test [name]')
    .option('-C, --classname <name>')
    .option('-B, --body <json>')
    .option('-n, --namespace <namespace>')
    .option('-R, --remote-settings <file>')
    .option('--force-local')
    .option('--import-schema <file-package-name...>')
    .option('-q, --queue [production]')
    .option('--bindings')
    .option('--unused')
    .option('--unbind <class>')
    .option('--plan <settings>')
    .option('--review-plan <plan>')
    .option('--apply-plan <plan>')
    .option('--verify-plan <plan>')
    .option('--rollback-backup [production]')
    .option('--production <name>')
    .option('--out <path>')
    .option('--settings <settings>')
    .option('--allow-destructive')
    .option('--strict-production-validation')
    .option('--format <format>');
  return program;
}

export function parseCommandLine(argv: readonly string[]): ParsedCommand {
  const program = buildParser();
  try {
    program.parse([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) throw new ConveyorError('ERR_USAGE', usageMessage(error, program.args));
    throw error;
  }
  const options = program.opts<Record<string, string | boolean | string[] | undefined>>();
  const given = Object.keys(actionOptions).filter((key) => options[key] !== undefined);
  const modifiers = {
    detach: options.detach === true,
    classname: asString(options.classname),
    body: asString(options.body),
    namespace: asString(options.namespace),
    remoteSettings: asString(options.remoteSettings),
    forceLocal: options.forceLocal === true,
  };
  // -h wins over anything else, as with argparse.
  if (options.help) return { action: 'help', ...modifiers };
  if (given.length > 1) {
    throw new ConveyorError('ERR_USAGE', `${given.map((key) => flagNames[key]).join(' and ')} cannot be used together: give one action per command`);
  }
  const key = given[0];
  const action: Action = key ? actionOptions[key]! : 'help';
  if (modifiers.detach && action !== 'start') throw new ConveyorError('ERR_USAGE', '-D/--detach only goes with -s/--start');
  if ((modifiers.classname !== undefined || modifiers.body !== undefined) && action !== 'test') {
    throw new ConveyorError('ERR_USAGE', '-C/--classname and -B/--body only go with -t/--test');
  }
  const parsed: ParsedCommand = { action, ...modifiers };
  for (const { key, flag, actions: allowed } of planModifiers) {
    const value = options[key];
    if (value === undefined) continue;
    if (!allowed.includes(action))
      throw new ConveyorError('ERR_USAGE', `${flag} can only be used with ${allowed.map((name) => flagNames[name]).join(' or ')}.`);
    if (typeof value === 'string') parsed[key as 'production' | 'out' | 'settings' | 'format'] = value;
    else parsed[key as 'unused' | 'allowDestructive' | 'strictProductionValidation'] = true;
  }
  const raw = key ? options[key] : undefined;
  if (typeof raw === 'string') parsed.value = raw;
  if (action === 'log' && parsed.value !== undefined) {
    if (!/^\d+$/.test(parsed.value)) throw new ConveyorError('ERR_USAGE', `-L takes a number of entries, not '${parsed.value}'`);
    parsed.logCount = Number(parsed.value);
  }
  if (action === 'importSchema') {
    const values = options.importSchema as string[];
    if (values.length !== 3) {
      throw new ConveyorError('ERR_USAGE', `--import-schema takes three values: the JSON schema file, the package and the schema name (got ${values.length})`);
    }
    parsed.schemaImport = { path: values[0]!, package: values[1]!, name: values[2]! };
  }
  return parsed;
}

function usageMessage(error: CommanderError, args: readonly string[]): string {
  if (error.code === 'commander.excessArguments') {
    return `unexpected argument '${args[0] ?? ''}': an option's value must follow the option (for example -s NAME)`;
  }
  return error.message.replace(/^error: /, '').replace('-M, --migrate-upper', '-M');
}

function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export const usageLine =
  'usage: cli [-h] [-d [NAME] | -l | -s [NAME] | -S | -k | -r | -u | -x | -m PATH | -e [NAME] | -v | -L [N] | -i [DIR] | -t [NAME] | --import-schema FILE PACKAGE NAME | -q [PROD] | --bindings | --unbind CLASS | --plan FILE | --review-plan FILE | --apply-plan FILE | --verify-plan FILE | --rollback-backup [PROD]] [-D] [-C CLASSNAME] [-B BODY] [-n NAMESPACE] [-R FILE] [--force-local] [--unused] [--production P] [--out PATH] [--settings FILE] [--allow-destructive] [--format FORMAT]';
