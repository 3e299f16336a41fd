/** What every action receives: the parsed command line, the mode, the API client and the terminal. */
import type { ConveyorClient } from '../client/api-client.ts';
import type { ParsedCommand } from './command-line.ts';
import type { Env, Mode } from './mode.ts';

export interface CliIo {
  /** Writes a line (a newline is added). */
  out(line: string): void;
  err(line: string): void;
  stdoutIsTty: boolean;
  stderrIsTty: boolean;
  env: Env;
  cwd: string;
  /** Fires when the user presses Ctrl+C (SIGINT); the returned function removes the handler. */
  onInterrupt(handler: () => void): () => void;
}

export interface CommandContext {
  command: ParsedCommand;
  mode: Mode;
  client: ConveyorClient;
  io: CliIo;
}

/**
 * The client's built-in default production name: what help reports, and what `-d`, `-s` and `-e` use,
 * when the namespace has no default production (docs/cli.md).
 */
export const builtinDefaultProduction = 'Python.Production';

/** The namespace's default production, else the built-in name. */
export async function effectiveDefault(client: ConveyorClient): Promise<string> {
  return (await client.getDefault()) || builtinDefaultProduction;
}

/** Where the command talks to, for messages: the URL, or the home in local mode. */
export function describeMode(mode: Mode): string {
  return mode.kind === 'remote' ? `REMOTE (${mode.url})` : `LOCAL (${mode.home})`;
}
