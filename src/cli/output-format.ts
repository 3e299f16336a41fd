/**
 * What `cli` prints, as the spec and architecture §8 fix it: 4-space JSON, the list with a numeric
 * AutoStart and fractional-second times, status as {"Production", "Status"}, the export in its
 * `{"Production": {...}}` string form, log lines and the test reply.
 */
import type { ExportedItem, ExportedProduction, LogEntryWire, ProductionList, TestReply } from '../client/replies.ts';
import type { IopItem, IopSetting } from '../core/iop-export.ts';
import { pythonJsonDumps } from './python-json.ts';

/** `json.dumps(value, indent=4)`. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, null, 4);
}

export interface ListedProduction {
  Status: string;
  LastStartTime: string;
  LastStopTime: string;
  AutoStart: number;
}

export function formatList(list: ProductionList): Record<string, ListedProduction> {
  const listed: Record<string, ListedProduction> = {};
  for (const [name, record] of Object.entries(list)) {
    listed[name] = {
      Status: record.Status,
      LastStartTime: withFraction(record.LastStartTime),
      LastStopTime: withFraction(record.LastStopTime),
      AutoStart: record.AutoStart === true || record.AutoStart === 1 ? 1 : 0,
    };
  }
  return listed;
}

/** `YYYY-MM-DD HH:MM:SS` → `YYYY-MM-DD HH:MM:SS.000`; a time that has a fraction, or none, is kept. */
export function withFraction(time: string | null | undefined): string {
  if (!time) return '';
  return /\.\d+$/.test(time) ? time : `${time}.000`;
}

export function formatStatus(production: string, status: string): { Production: string; Status: string } {
  return { Production: production, Status: status };
}

/** IoP's xmltodict item (src/core/iop-export.ts), with its settings always a list in the cli's export. */
type CliExportItem = Omit<IopItem, 'Setting'> & { Setting: IopSetting[] };

export interface CliExport {
  Production: {
    '@Name': string;
    '@TestingEnabled': string;
    '@LogGeneralTraceEvents': string;
    Description: string;
    ActorPoolSize: string;
    /** Production-level settings (ShutdownTimeout…), as IoP 4 writes them: only when the production has some. */
    Setting?: Array<{ '@Name': string; '#text': string }>;
    Item: CliExportItem[];
  };
}

/** The HTTP export shape → the CLI export shape (every value a string, booleans as `true`/`false`). */
export function toCliExport(definition: ExportedProduction): CliExport {
  return {
    Production: {
      '@Name': text(definition.name),
      '@TestingEnabled': text(definition.test_enabled),
      '@LogGeneralTraceEvents': text(definition.log_trace_events),
      Description: text(definition.description),
      ActorPoolSize: text(definition.actor_pool_size),
      ...(definition.settings?.length
        ? { Setting: definition.settings.map((setting) => ({ '@Name': text(setting.name), '#text': text(setting.value) })) }
        : {}),
      Item: (definition.items ?? []).map(toCliItem),
    },
  };
}

function toCliItem(item: ExportedItem): CliExportItem {
  return {
    '@Name': text(item.name),
    '@Category': text(item.category),
    '@ClassName': text(item.classname),
    '@PoolSize': text(item.pool_size),
    '@Enabled': text(item.enabled),
    '@Foreground': text(item.foreground),
    '@Comment': text(item.comment),
    '@LogTraceEvents': text(item.log_trace_events),
    '@Schedule': text(item.schedule),
    Setting: (item.settings ?? []).map((setting) => ({ '@Target': text(setting.target), '@Name': text(setting.name), '#text': text(setting.value) })),
  };
}

function text(value: unknown): string {
  return value === undefined || value === null ? '' : String(value);
}

const ansi = { reset: '\x1b[0m', red: '\x1b[31m', yellow: '\x1b[33m', magenta: '\x1b[35m', cyan: '\x1b[36m', gray: '\x1b[90m', boldRed: '\x1b[1;31m' };

const levelColours: Record<string, string> = {
  ASSERT: ansi.boldRed,
  ERROR: ansi.red,
  WARNING: ansi.yellow,
  ALERT: ansi.magenta,
  INFO: ansi.cyan,
  TRACE: ansi.gray,
};

/** `<timestamp> [<config_name>] <LEVEL>: <text>`; with colour, the level is coloured and the time dimmed. */
export function formatLogLine(entry: LogEntryWire, colour: boolean): string {
  const level = text(entry.type || 'Unknown').toUpperCase();
  const time = text(entry.time_logged);
  const name = text(entry.config_name);
  if (!colour) return `${time} [${name}] ${level}: ${text(entry.text)}`;
  const paint = levelColours[level];
  const levelText = paint ? `${paint}${level}${ansi.reset}` : level;
  return `${ansi.gray}${time}${ansi.reset} [${name}] ${levelText}: ${text(entry.text)}`;
}

/** Colour on a terminal, unless NO_COLOR is set (any value) or TERM is dumb; FORCE_COLOR forces it. */
export function useColour(isTty: boolean, env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return isTty && env.TERM !== 'dumb';
}

/** `classname: <name>`, `body:` and the JSON as IoP's cli prints it (or `body: <text>` when the body is not JSON). */
export function formatTestReply(reply: TestReply): string {
  const lines: string[] = [];
  if (reply.classname) lines.push(`classname: ${reply.classname}`);
  const body = reply.body ?? '';
  if (body !== '') {
    const pretty = pythonJsonDumps(body);
    if (pretty === undefined) lines.push(`body: ${body}`);
    else lines.push('body:', pretty);
  }
  if (reply.truncated === true || reply.truncated === 1) lines.push('(response body was truncated)');
  if (lines.length === 0) return '(the component returned no response)';
  return lines.join('\n');
}
