/**
 * The JSON the spec's HTTP routes answer, as the server writes it (architecture §8: real booleans
 * and integers). The API builds these; the portal reads them; the CLI's client reads them too,
 * more tolerantly where IoP servers answer differently.
 */
import type { SettingTarget } from './production.ts';

/** One production of `GET /list`. */
export interface ListRecordJson {
  Status: string;
  LastStartTime: string;
  LastStopTime: string;
  AutoStart: boolean;
}

/** One entry of `GET /log`. */
export interface LogEntryJson {
  id: number;
  config_name: string;
  job: string;
  message_id: string;
  session_id: string;
  source_class: string;
  source_method: string;
  text: string;
  time_logged: string;
  /** Assert | Error | Warning | Info | Trace | Alert | Unknown */
  type: string;
}

export interface ExportSettingJson {
  target: SettingTarget;
  name: string;
  value: string;
}

export interface ExportItemJson {
  name: string;
  classname: string;
  pool_size: number;
  enabled: boolean;
  foreground: boolean;
  comment: string;
  log_trace_events: boolean;
  schedule: string;
  settings: ExportSettingJson[];
}

/** The production definition of `GET /export`. */
export interface ExportJson {
  name: string;
  description: string;
  test_enabled: boolean;
  log_trace_events: boolean;
  actor_pool_size: number;
  items: ExportItemJson[];
}
