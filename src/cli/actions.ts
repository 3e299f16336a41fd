/**
 * The one-request actions of `cli`: default, list, status, stop/kill/restart/update, export, test and
 * the JSON-schema import. Each writes its result on stdout in the spec's format.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConveyorError } from '../core/errors.ts';
import { testBody } from '../client/api-client.ts';
import { effectiveDefault, type CommandContext } from './context.ts';
import { formatList, formatStatus, formatTestReply, toCliExport, toJson } from './output-format.ts';
import { withProgress } from './progress-watch.ts';
import { reportFailedItems } from './failed-items.ts';

export async function defaultAction({ command, client, io }: CommandContext): Promise<void> {
  if (command.value !== undefined) {
    await client.setDefault(command.value);
    return;
  }
  io.out(`default production: ${await effectiveDefault(client)}`);
}

export async function listAction({ client, io }: CommandContext): Promise<void> {
  io.out(toJson(formatList(await client.list())));
}

export async function statusAction({ client, io }: CommandContext): Promise<void> {
  const status = await client.status();
  // A namespace that never ran a production reports ''; name its default then, as IoP does.
  const production = status.production || (await client.getDefault());
  io.out(toJson(formatStatus(production, status.status)));
}

const lifecycle = {
  stop: (ctx: CommandContext) => ctx.client.stop(),
  kill: (ctx: CommandContext) => ctx.client.kill(),
  restart: (ctx: CommandContext) => ctx.client.restart(),
  update: (ctx: CommandContext) => ctx.client.update(),
} as const;

const pastTense = { stop: 'stopped', kill: 'killed', restart: 'restarted', update: 'updated' } as const;

const presentTense = { stop: 'Stopping', kill: 'Killing', restart: 'Restarting', update: 'Updating' } as const;

/**
 * `-S`, `-k`, `-r`, `-u`: the operation, with its items' progress on stderr while it runs, then
 * `Production <name> <stopped|killed|…>` on stdout.
 */
export async function lifecycleAction(operation: keyof typeof lifecycle, ctx: CommandContext): Promise<void> {
  const before = await ctx.client.status();
  const title = `${presentTense[operation]} ${before.production || 'the production'}`;
  await withProgress(ctx, operation, title, before.production, () => lifecycle[operation](ctx));
  const name = before.production || (await ctx.client.getDefault());
  if (name && (operation === 'restart' || operation === 'update')) await reportFailedItems(ctx.client, ctx.io, name);
  ctx.io.out(name ? `Production ${name} ${pastTense[operation]}` : `Production ${pastTense[operation]}`);
}

export async function exportAction({ command, client, io }: CommandContext): Promise<void> {
  const name = command.value ?? (await effectiveDefault(client));
  io.out(toJson(toCliExport(await client.exportProduction(name))));
}

export async function testAction({ command, client, io }: CommandContext): Promise<void> {
  if (!command.value) {
    throw new ConveyorError('ERR_INVALID_INPUT', '-t needs the config name of the component to test', {
      hint: 'for example: cli -t Python.MyOperation -C msg.MyRequest -B \'{"text": "hi"}\'',
    });
  }
  const body = readTestBody(command.body, io.cwd);
  const reply = await client.test({
    target: command.value,
    ...(command.classname ? { classname: command.classname } : {}),
    ...(body === undefined ? {} : { body: testBody(body) }),
    restart: true,
  });
  io.out(formatTestReply(reply));
}

/**
 * `-B`: inline JSON, or `@path` to a JSON file (relative to the working directory). A text that is not
 * JSON is sent as the text it is, as IoP's client does (the StringValue of `-C Ens.StringRequest`).
 */
export function readTestBody(argument: string | undefined, cwd: string): unknown {
  if (argument === undefined) return undefined;
  const text = argument.startsWith('@') ? readTextFile(resolve(cwd, argument.slice(1)), `-B ${argument}`) : argument;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  // JSON the server takes as a body (an object, or a JSON string); other JSON (42, [1]) goes as its text.
  return typeof parsed === 'string' || (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) ? parsed : text;
}

function readTextFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : String(error);
    throw new ConveyorError('ERR_INVALID_INPUT', `${what}: cannot read ${path}: ${why}`);
  }
}

export function parseJsonFile(path: string, what: string): unknown {
  const text = readTextFile(path, what);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConveyorError('ERR_INVALID_INPUT', `${what}: ${path} is not valid JSON: ${(error as Error).message}`);
  }
}

/** `--import-schema FILE PACKAGE NAME`: registers a JSON schema for DTL (spec DTL item 3). */
export async function importSchemaAction({ command, client, io }: CommandContext): Promise<void> {
  const args = command.schemaImport!;
  const schema = parseJsonFile(resolve(io.cwd, args.path), '--import-schema');
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new ConveyorError('ERR_INVALID_INPUT', `--import-schema: ${args.path} must hold a JSON schema object`);
  }
  await client.importSchema({ package: args.package, name: args.name, schema });
  io.out(`Schema ${args.name} imported into package ${args.package}`);
}
