import { describe, expect, it } from 'vitest';
import type { LogEntryWire } from '../client/replies.ts';
import { itemEvent } from './progress-watch.ts';

function entry(text: string, configName: string, type: LogEntryWire['type'] = 'Info'): LogEntryWire {
  return {
    id: 1,
    config_name: configName,
    job: '1',
    message_id: '',
    session_id: '',
    source_class: 'Conveyor.Engine',
    source_method: '',
    text,
    time_logged: '2026-01-01 00:00:00',
    type,
  };
}

describe('itemEvent', () => {
  it('turns the engine entries of an item into events; a start counts starts, a stop stops, a restart both', () => {
    expect(itemEvent(entry('Item My Item started with 2 jobs', 'My Item'), 'start')).toEqual({ text: 'My Item started', counts: true, failure: false });
    expect(itemEvent(entry('Item A stopped', 'A'), 'start')).toEqual({ text: 'A stopped', counts: false, failure: false });
    expect(itemEvent(entry('Item A stopped', 'A'), 'stop')).toMatchObject({ counts: true });
    expect(itemEvent(entry('Item A stopped', 'A'), 'restart')).toMatchObject({ counts: true });
    expect(itemEvent(entry('Item A started with 1 job', 'A'), 'restart')).toMatchObject({ counts: true });
    expect(itemEvent(entry('Item A started with 1 job', 'A'), 'stop')).toMatchObject({ counts: false });
  });

  it('a failed start is a failure that still counts; other errors of an item are failures that do not', () => {
    expect(itemEvent(entry('Item A failed to start: boom', 'A', 'Error'), 'start')).toEqual({ text: 'A failed to start: boom', counts: true, failure: true });
    expect(itemEvent(entry('Item A failed on message 3: boom', 'A', 'Error'), 'start')).toEqual({
      text: 'A: failed on message 3: boom',
      counts: false,
      failure: true,
    });
  });

  it('ignores what is not about an item (user log lines, production lines)', () => {
    expect(itemEvent(entry('echo operation ready', 'A'), 'start')).toBeNull();
    expect(itemEvent(entry('Production P started', ''), 'start')).toBeNull();
    expect(itemEvent(entry('Item B started with 1 job', 'A'), 'start')).toBeNull();
  });
});
