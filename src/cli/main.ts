/**
 * `cli`: parse, pick the mode, build the one API client over the mode's transport, run the action.
 * Exit codes: 0 success, 1 failure (`Error: …` on stderr), 2 usage error (usage on stderr), 130 after
 * Ctrl+C cancelled a start (the state it left is on stderr).
 */
import { ConveyorClient } from '../client/api-client.ts';
import { createNodeTransport } from '../client/node-transport.ts';
import type { Transport } from '../client/transport.ts';
import { errorText, isConveyorError } from '../core/errors.ts';
import { isStatusText } from '../core/status-text.ts';
import * as actions from './actions.ts';
import { parseCommandLine, usageLine, type ParsedCommand } from './command-line.ts';
import type { CliIo, CommandContext } from './context.ts';
import { helpAction } from './help.ts';
import { initAction } from './init-action.ts';
import { createLocalTransport } from './local-server.ts';
import { CommandInterrupted } from './interrupted.ts';
import { logAction } from './log-follow.ts';
import { migrateAction } from './migrate-action.ts';
import { cliEnv, resolveMode, type Mode } from './mode.ts';
import { packageVersion } from './package-info.ts';
import { renderExportAction } from './export-render.ts';
import * as planActions from './plan-actions.ts';
import { startAction } from './start-action.ts';

export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  let transport: Transport | undefined;
  try {
    const command = parseCommandLine(argv);
    // The version is the package's, in both modes: no server is asked.
    if (command.action === 'version') {
      io.out(packageVersion());
      return 0;
    }
    const mode = resolveMode({
      forceLocal: command.forceLocal,
      remoteSettingsFile: command.remoteSettings,
      migrateFile: command.action === 'migrate' ? command.value : undefined,
      namespace: command.namespace,
      env: io.env,
      cwd: io.cwd,
    });
    transport = openTransport(mode, command, io);
    const client = new ConveyorClient(transport, { namespace: mode.namespace, ...mountPrefixes(mode, io) });
    await dispatch({ command, mode, client, io });
    return 0;
  } catch (error) {
    return reportError(error, io);
  } finally {
    transport?.close();
  }
}

function openTransport(mode: Mode, command: ParsedCommand, io: CliIo): Transport {
  if (mode.kind === 'remote') {
    const where =
      mode.source === 'CLI_URL'
        ? 'CLI_URL'
        : mode.source === 'CLI_SETTINGS'
          ? 'the url of REMOTE_SETTINGS in CLI_SETTINGS'
          : `the url of REMOTE_SETTINGS in the ${mode.source} file`;
    return createNodeTransport({
      baseUrl: mode.url,
      credentials: { username: mode.username, password: mode.password },
      verifySsl: mode.verifySsl,
      unreachableHint: `check ${where} and that the server is running`,
    });
  }
  return createLocalTransport({ home: mode.home, autoStart: command.action !== 'help', notify: (line) => io.err(line), env: { ...io.env } });
}

/**
 * Where the server mounts its APIs, when not at the defaults: CLI_API_PREFIX / CLI_DOCS_PREFIX for a
 * remote server; locally the server's own CONVEYOR_API_PREFIX / CONVEYOR_DOCS_PREFIX (which a server
 * the CLI starts inherits).
 */
function mountPrefixes(mode: Mode, io: CliIo): { apiPrefix?: string; docsPrefix?: string } {
  const apiPrefix = mode.kind === 'remote' ? cliEnv(io.env, 'API_PREFIX') : io.env.CONVEYOR_API_PREFIX;
  const docsPrefix = mode.kind === 'remote' ? cliEnv(io.env, 'DOCS_PREFIX') : io.env.CONVEYOR_DOCS_PREFIX;
  return { ...(apiPrefix ? { apiPrefix } : {}), ...(docsPrefix ? { docsPrefix } : {}) };
}

function dispatch(ctx: CommandContext): Promise<void> {
  const { command } = ctx;
  switch (command.action) {
    case 'help':
      return helpAction(ctx);
    case 'default':
      return actions.defaultAction(ctx);
    case 'list':
      return actions.listAction(ctx);
    case 'status':
      return actions.statusAction(ctx);
    case 'start':
      return startAction(ctx);
    case 'stop':
    case 'kill':
    case 'restart':
    case 'update':
      return actions.lifecycleAction(command.action, ctx);
    case 'export':
      return command.format === undefined || command.format === 'json' ? actions.exportAction(ctx) : renderExportAction(ctx);
    case 'log':
      return logAction(ctx);
    case 'migrate':
      return migrateAction(ctx);
    case 'init':
      return initAction(ctx);
    case 'test':
      return actions.testAction(ctx);
    case 'importSchema':
      return actions.importSchemaAction(ctx);
    case 'queue':
      return planActions.queueAction(ctx);
    case 'bindings':
      return planActions.bindingsAction(ctx);
    case 'unbind':
      return planActions.unbindAction(ctx);
    case 'plan':
      return planActions.planAction(ctx);
    case 'reviewPlan':
      return planActions.reviewPlanAction(ctx);
    case 'applyPlan':
      return planActions.applyPlanAction(ctx);
    case 'verifyPlan':
      return planActions.verifyPlanAction(ctx);
    case 'rollbackBackup':
      return planActions.rollbackAction(ctx);
    case 'version':
      throw new Error('the version is printed before any mode is chosen');
  }
}

export function reportError(error: unknown, io: CliIo): number {
  if (error instanceof CommandInterrupted) {
    io.err(error.message);
    return error.exitCode;
  }
  if (isConveyorError(error, 'ERR_USAGE')) {
    io.err(usageLine);
    io.err(`cli: error: ${error.message}`);
    io.err("Run 'cli -h' to see the options.");
    return 2;
  }
  const message = isConveyorError(error) && error.hint ? `${error.message} (${error.hint})` : errorText(error);
  // The server's texts already read `ERROR #CODE: …`; they are printed as they are.
  io.err(isStatusText(message) ? message : `Error: ${message}`);
  if (io.env.CONVEYOR_DEBUG === '1' && error instanceof Error && error.stack) io.err(error.stack);
  return 1;
}

export function processIo(): CliIo {
  // A reader that goes away (`cli -L | head`) ends the command quietly, not with a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  return {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    stdoutIsTty: process.stdout.isTTY === true,
    stderrIsTty: process.stderr.isTTY === true,
    env: process.env,
    cwd: process.cwd(),
    onInterrupt(handler) {
      process.on('SIGINT', handler);
      return () => process.off('SIGINT', handler);
    },
  };
}
