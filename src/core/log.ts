/** The event log of a namespace: entries of the spec's log shape. */

export const logTypes = ['Assert', 'Error', 'Warning', 'Info', 'Trace', 'Alert', 'Unknown'] as const;
export type LogType = (typeof logTypes)[number];

export interface NewLogEntry {
  type: LogType;
  configName: string;
  job: string;
  messageId: number | null;
  sessionId: number | null;
  sourceClass: string;
  sourceMethod: string;
  text: string;
}

export interface LogEntry extends NewLogEntry {
  id: number;
  namespace: string;
  /** Epoch ms. */
  timeLogged: number;
}
