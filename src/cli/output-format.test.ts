import { describe, expect, it } from 'vitest';
import type { ExportedProduction, LogEntryWire } from '../client/replies.ts';
import { formatList, formatLogLine, formatStatus, formatTestReply, toCliExport, toJson, useColour, withFraction } from './output-format.ts';

describe('toJson', () => {
  it('indents with 4 spaces like json.dumps(indent=4)', () => {
    expect(toJson({ a: [1, { b: 'c' }], e: {} })).toBe('{\n    "a": [\n        1,\n        {\n            "b": "c"\n        }\n    ],\n    "e": {}\n}');
  });
});

describe('formatList', () => {
  it('writes AutoStart as a number and times with fractional seconds', () => {
    const list = {
      'A.Prod': { Status: 'Running', LastStartTime: '2026-01-02 03:04:05', LastStopTime: '', AutoStart: true },
      'B.Prod': { Status: 'Stopped', LastStartTime: '2026-01-02 03:04:05.250', LastStopTime: '2026-01-02 04:00:00', AutoStart: false },
      'C.Prod': { Status: 'Stopped', LastStartTime: '', LastStopTime: '', AutoStart: 1 },
    };
    expect(formatList(list)).toEqual({
      'A.Prod': { Status: 'Running', LastStartTime: '2026-01-02 03:04:05.000', LastStopTime: '', AutoStart: 1 },
      'B.Prod': { Status: 'Stopped', LastStartTime: '2026-01-02 03:04:05.250', LastStopTime: '2026-01-02 04:00:00.000', AutoStart: 0 },
      'C.Prod': { Status: 'Stopped', LastStartTime: '', LastStopTime: '', AutoStart: 1 },
    });
  });

  it('keeps an absent time empty', () => {
    expect(withFraction(null)).toBe('');
    expect(withFraction(undefined)).toBe('');
  });
});

describe('formatStatus', () => {
  it('uses capitalised keys', () => {
    expect(toJson(formatStatus('P', 'running'))).toBe('{\n    "Production": "P",\n    "Status": "running"\n}');
  });
});

describe('toCliExport', () => {
  it('turns the HTTP shape into the {"Production": {...}} form with every value a string', () => {
    const definition: ExportedProduction = {
      name: 'Demo.Production',
      description: 'demo',
      test_enabled: true,
      log_trace_events: false,
      actor_pool_size: 2,
      items: [
        {
          name: 'Op',
          classname: 'Python.Op',
          category: 'cat',
          pool_size: 1,
          enabled: true,
          foreground: false,
          comment: '',
          log_trace_events: true,
          schedule: '',
          settings: [{ target: 'Adapter', name: 'Charset', value: 'utf-8' }],
        },
        {
          name: 'Svc',
          classname: 'Python.Svc',
          pool_size: 0,
          enabled: false,
          foreground: false,
          comment: 'c',
          log_trace_events: false,
          schedule: 's',
          settings: [],
        },
      ],
    };
    expect(toCliExport(definition)).toEqual({
      Production: {
        '@Name': 'Demo.Production',
        '@TestingEnabled': 'true',
        '@LogGeneralTraceEvents': 'false',
        Description: 'demo',
        ActorPoolSize: '2',
        Item: [
          {
            '@Name': 'Op',
            '@Category': 'cat',
            '@ClassName': 'Python.Op',
            '@PoolSize': '1',
            '@Enabled': 'true',
            '@Foreground': 'false',
            '@Comment': '',
            '@LogTraceEvents': 'true',
            '@Schedule': '',
            Setting: [{ '@Target': 'Adapter', '@Name': 'Charset', '#text': 'utf-8' }],
          },
          {
            '@Name': 'Svc',
            '@Category': '',
            '@ClassName': 'Python.Svc',
            '@PoolSize': '0',
            '@Enabled': 'false',
            '@Foreground': 'false',
            '@Comment': 'c',
            '@LogTraceEvents': 'false',
            '@Schedule': 's',
            Setting: [],
          },
        ],
      },
    });
  });
});

describe('formatLogLine', () => {
  const entry: LogEntryWire = {
    id: 1,
    config_name: 'Python.Op',
    job: '12',
    message_id: '',
    session_id: '',
    source_class: 'bo.Op',
    source_method: 'on_message',
    text: 'hello',
    time_logged: '2026-01-02 03:04:05',
    type: 'Warning',
  };

  it('prints <timestamp> [<config_name>] <LEVEL>: <text> plainly', () => {
    expect(formatLogLine(entry, false)).toBe('2026-01-02 03:04:05 [Python.Op] WARNING: hello');
  });

  it('colours the level by severity on a terminal', () => {
    expect(formatLogLine(entry, true)).toBe('\x1b[90m2026-01-02 03:04:05\x1b[0m [Python.Op] \x1b[33mWARNING\x1b[0m: hello');
    expect(formatLogLine({ ...entry, type: 'Error' }, true)).toContain('\x1b[31mERROR\x1b[0m');
  });
});

describe('useColour', () => {
  it('colours a terminal unless NO_COLOR or TERM=dumb; FORCE_COLOR forces it', () => {
    expect(useColour(true, {})).toBe(true);
    expect(useColour(false, {})).toBe(false);
    expect(useColour(true, { NO_COLOR: '1' })).toBe(false);
    expect(useColour(true, { TERM: 'dumb' })).toBe(false);
    expect(useColour(false, { FORCE_COLOR: '1' })).toBe(true);
    expect(useColour(true, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(false);
  });
});

describe('formatTestReply', () => {
  it('prints classname, body: and the pretty JSON', () => {
    expect(formatTestReply({ classname: 'msg.Resp', body: '{"a":1}', truncated: false })).toBe('classname: msg.Resp\nbody:\n{\n    "a": 1\n}');
  });

  it('prints a body that is not JSON on the body line, and flags a truncated one', () => {
    expect(formatTestReply({ classname: 'Ens.StringResponse', body: '<xml/>', truncated: true })).toBe(
      'classname: Ens.StringResponse\nbody: <xml/>\n(response body was truncated)',
    );
  });

  it('says when the component returned nothing', () => {
    expect(formatTestReply({ classname: '', body: '', truncated: false })).toBe('(the component returned no response)');
    expect(formatTestReply({})).toBe('(the component returned no response)');
  });
});
