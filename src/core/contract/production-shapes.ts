/**
 * The JSON shapes of the spec's resources as the server writes them (architecture §8: real booleans
 * and integers): the production status record of `GET /list`, the log entry of `GET /log`, the
 * production definition of `GET /export` (also what the portal reads and saves).
 */
import { Type, type Static } from 'typebox';
import { logTypes } from '../log.ts';
import { closed } from './route.ts';

const timestamp = Type.String({ pattern: '^(\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2})?$', description: 'YYYY-MM-DD HH:MM:SS (UTC), or empty when never' });

export const reportedStatus = Type.Union([
  Type.Literal('running'),
  Type.Literal('stopped'),
  Type.Literal('suspended'),
  Type.Literal('troubled'),
  Type.Literal('unknown'),
]);

/** One production of `GET /list`: the status "in its own capitalisation". */
export const listRecord = closed({
  Status: Type.Union([Type.Literal('Running'), Type.Literal('Stopped'), Type.Literal('Suspended'), Type.Literal('Troubled'), Type.Literal('Unknown')]),
  LastStartTime: timestamp,
  LastStopTime: timestamp,
  AutoStart: Type.Boolean(),
});
export type ListRecordJson = Static<typeof listRecord>;

export const productionList = Type.Record(Type.String(), listRecord);

export const logType = Type.Enum(logTypes);

/** One entry of `GET /log`. */
export const logEntry = closed({
  id: Type.Integer(),
  config_name: Type.String(),
  job: Type.String(),
  message_id: Type.String(),
  session_id: Type.String(),
  source_class: Type.String(),
  source_method: Type.String(),
  text: Type.String(),
  time_logged: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' }),
  type: logType,
});
export type LogEntryJson = Static<typeof logEntry>;

const settingTarget = Type.Union([Type.Literal('Host'), Type.Literal('Adapter')]);

export const exportSetting = closed({ target: settingTarget, name: Type.String(), value: Type.String() });
export type ExportSettingJson = Static<typeof exportSetting>;

export const exportItem = closed({
  name: Type.String(),
  classname: Type.String(),
  pool_size: Type.Integer(),
  enabled: Type.Boolean(),
  foreground: Type.Boolean(),
  comment: Type.String(),
  log_trace_events: Type.Boolean(),
  schedule: Type.String(),
  settings: Type.Array(exportSetting),
});
export type ExportItemJson = Static<typeof exportItem>;

/** A production-level setting (ShutdownTimeout, UpdateTimeout, AlertNotification…, AlertActionWindow). */
export const exportProductionSetting = closed({ name: Type.String(), value: Type.String() });

/**
 * The production definition of `GET /export`. `settings` (production-level settings) is Conveyor's
 * addition to the spec's shape: present only when the production has some, so the spec's fields and
 * every definition without them read exactly as the spec shows.
 */
export const exportDefinition = closed({
  name: Type.String(),
  description: Type.String(),
  test_enabled: Type.Boolean(),
  log_trace_events: Type.Boolean(),
  actor_pool_size: Type.Integer(),
  items: Type.Array(exportItem),
  settings: Type.Optional(Type.Array(exportProductionSetting)),
});
export type ExportJson = Static<typeof exportDefinition>;

const iopSetting = closed({ '@Target': Type.String(), '@Name': Type.String(), '#text': Type.String() });
const iopProductionSetting = closed({ '@Name': Type.String(), '#text': Type.String() });
const iopItem = closed({
  '@Name': Type.String(),
  '@Category': Type.String(),
  '@ClassName': Type.String(),
  '@PoolSize': Type.String(),
  '@Enabled': Type.String(),
  '@Foreground': Type.String(),
  '@Comment': Type.String(),
  '@LogTraceEvents': Type.String(),
  '@Schedule': Type.String(),
  Setting: Type.Optional(Type.Union([Type.Array(iopSetting), iopSetting])),
});

/**
 * The production definition in IoP's export form (src/core/iop-export.ts): the XML read by xmltodict,
 * keyed by the production name; a single item or setting is an object, none is absent.
 */
export const iopExportDefinition = Type.Record(
  Type.String(),
  closed({
    '@Name': Type.String(),
    '@TestingEnabled': Type.String(),
    '@LogGeneralTraceEvents': Type.String(),
    Description: Type.String(),
    ActorPoolSize: Type.String(),
    Setting: Type.Optional(Type.Union([Type.Array(iopProductionSetting), iopProductionSetting])),
    Item: Type.Optional(Type.Union([Type.Array(iopItem), iopItem])),
  }),
  { description: "IoP's export form (server setting exportFormat: iop)" },
);
