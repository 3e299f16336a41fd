/**
 * The engine's records written as the API's JSON (src/core/contract): the list record, the log
 * entry and the test reply, cut at the declared limit. The export's JSON is core/export-json.ts.
 */
import type { ListRecordJson, LogEntryJson } from '../core/contract/production-shapes.ts';
import { testBodyLimit } from '../core/contract/spec-routes.ts';
import type { LogEntry } from '../core/log.ts';
import type { ReportedStatus } from '../core/production.ts';
import { formatTimestamp } from '../core/time.ts';
import type { ProductionSummary } from '../engine/namespace-operations.ts';

const listStatus: Record<ReportedStatus, ListRecordJson['Status']> = {
  running: 'Running',
  stopped: 'Stopped',
  suspended: 'Suspended',
  troubled: 'Troubled',
  unknown: 'Unknown',
};

/** The list reports the status "in its own capitalisation": `Running`, `Stopped`, … */
export function listRecord(summary: ProductionSummary): ListRecordJson {
  return {
    Status: listStatus[summary.status],
    LastStartTime: summary.lastStartTime === null ? '' : formatTimestamp(summary.lastStartTime),
    LastStopTime: summary.lastStopTime === null ? '' : formatTimestamp(summary.lastStopTime),
    AutoStart: summary.autoStart,
  };
}

export function logEntryJson(entry: LogEntry): LogEntryJson {
  return {
    id: entry.id,
    config_name: entry.configName,
    job: entry.job,
    message_id: entry.messageId === null ? '' : String(entry.messageId),
    session_id: entry.sessionId === null ? '' : String(entry.sessionId),
    source_class: entry.sourceClass,
    source_method: entry.sourceMethod,
    text: entry.text,
    time_logged: formatTimestamp(entry.timeLogged),
    type: entry.type,
  };
}

export interface TestReplyJson {
  classname: string;
  body: string;
  truncated: boolean;
}

export function testReply(classname: string, body: string): TestReplyJson {
  if (body.length <= testBodyLimit) return { classname, body, truncated: false };
  // Never split a surrogate pair: the cut text must stay valid UTF-16.
  const last = body.charCodeAt(testBodyLimit - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? testBodyLimit - 1 : testBodyLimit;
  return { classname, body: body.slice(0, end), truncated: true };
}
