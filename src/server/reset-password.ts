/**
 * `conveyor users reset-password NAME`: a new password for a user of a home, written into the home's
 * users.json directly (whether its server runs or not: a running server re-reads the file on the next
 * sign-in it has not verified yet). The file is replaced atomically, so a kill at any instant leaves
 * the old users or the new ones. Run as the home's owner: the home is private (0700).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { UserDirectory } from '../api/users.ts';
import { ConveyorError } from '../core/errors.ts';
import { defaultHome } from './config.ts';

export interface PasswordReset {
  /** The generated password to show once, or null when the caller gave one. */
  generated: string | null;
  file: string;
}

/**
 * The home whose users to change: `--home`, else CONVEYOR_HOME, else the current folder when it holds
 * a users.json (the command run from inside a home), else ~/.conveyor.
 */
export function usersHome(flag: string | undefined, environment: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  if (flag) return resolve(flag);
  if (!environment['CONVEYOR_HOME'] && existsSync(join(cwd, 'users.json'))) return resolve(cwd);
  return resolve(defaultHome());
}

/** Sets `password` (generates one when null) for the existing user `name` of the home. */
export async function resetPassword(home: string, name: string, password: string | null): Promise<PasswordReset> {
  const file = join(home, 'users.json');
  if ((await stat(file).catch(() => null)) === null) {
    throw new ConveyorError('ERR_CONFIG', `No users file ${file}: is ${home} the home of a server?`, {
      hint: 'Give the home with --home or CONVEYOR_HOME; a server creates the file (and the first admin) on its first start',
    });
  }
  const generated = password === null ? randomBytes(18).toString('base64url') : null;
  const directory = await UserDirectory.open(file);
  await directory.setPassword(name, password ?? generated!);
  return { generated, file };
}

/** The password the command line gives (--password or --password-stdin), or null to generate one. */
export async function chosenPassword(flags: { password?: string; passwordStdin?: boolean }, stdin: Readable): Promise<string | null> {
  if (flags.password !== undefined && flags.passwordStdin) {
    throw new ConveyorError('ERR_INVALID_INPUT', 'Give the password either with --password or on stdin (--password-stdin), not both');
  }
  if (flags.passwordStdin) return passwordFromStdin(stdin);
  if (flags.password === undefined) return null;
  if (flags.password === '') throw new ConveyorError('ERR_INVALID_INPUT', '--password must not be empty');
  return flags.password;
}

/** The password piped on stdin: everything up to the end, without the final line break. */
async function passwordFromStdin(input: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  const password = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (password === '')
    throw new ConveyorError('ERR_INVALID_INPUT', 'No password on stdin', {
      hint: 'Pipe it in: printf %s "$NEW_PASSWORD" | conveyor users reset-password NAME --password-stdin',
    });
  if (/[\r\n]/.test(password)) throw new ConveyorError('ERR_INVALID_INPUT', 'The password on stdin spans several lines; give one line');
  return password;
}
