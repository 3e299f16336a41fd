import { describe, expect, it } from 'vitest';
import { newItem } from '../../core/production.ts';
import { failureKey, RepeatGate, RestartCounter } from './alert-rules.ts';
import { alertSettingsOf } from './alert-settings.ts';

describe('RepeatGate', () => {
  it('sends a key once per window and counts the repeats inside it', () => {
    const gate = new RepeatGate(60_000);
    expect(gate.admit('Op/failure', 0)).toBe(true);
    expect(gate.admit('Op/failure', 59_999)).toBe(false);
    expect(gate.admit('Other/failure', 10)).toBe(true);
    expect(gate.admit('Op/failure', 60_000)).toBe(true);
  });

  it('sends every occurrence with a window of 0', () => {
    const gate = new RepeatGate(0);
    expect(gate.admit('k', 5)).toBe(true);
    expect(gate.admit('k', 5)).toBe(true);
  });
});

describe('RestartCounter', () => {
  it('says "repeatedly" from the third restart within the period', () => {
    const counter = new RestartCounter(3, 300_000);
    expect(counter.restarted('Op', 0)).toBeNull();
    expect(counter.restarted('Op', 1_000)).toBeNull();
    expect(counter.restarted('Other', 1_500)).toBeNull();
    expect(counter.restarted('Op', 2_000)).toBe(3);
    // restarts older than the period no longer count
    expect(counter.restarted('Op', 400_000)).toBeNull();
  });
});

describe('failureKey', () => {
  it('makes failures of one cause on different messages the same alert', () => {
    expect(failureKey('Item Op failed on message 12: boom')).toBe(failureKey('Item Op failed on message 345: boom'));
    expect(failureKey('Item Op failed on message 12: boom')).not.toBe(failureKey('Item Op failed on message 12: bang'));
  });
});

describe('alertSettingsOf', () => {
  it('reads the IRIS Host settings, with IRIS defaults when absent or not numbers', () => {
    const item = newItem('Op', 'bo.Op', {
      settings: [
        { target: 'Host', name: 'AlertOnError', value: '1' },
        { target: 'Host', name: 'AlertGracePeriod', value: '2.5' },
        { target: 'Host', name: 'InactivityTimeout', value: '30' },
        { target: 'Host', name: 'QueueCountAlert', value: '100' },
      ],
    });
    expect(alertSettingsOf(item)).toEqual({ alertOnError: true, gracePeriodMs: 2500, inactivityTimeoutMs: 30_000, queueCountAlert: 100 });
    expect(alertSettingsOf(newItem('Op', 'bo.Op'))).toEqual({ alertOnError: false, gracePeriodMs: 0, inactivityTimeoutMs: 0, queueCountAlert: 0 });
    const junk = newItem('Op', 'bo.Op', {
      settings: [
        { target: 'Host', name: 'AlertOnError', value: 'no' },
        { target: 'Host', name: 'QueueCountAlert', value: 'many' },
        { target: 'Adapter', name: 'InactivityTimeout', value: '9' },
      ],
    });
    expect(alertSettingsOf(junk)).toEqual({ alertOnError: false, gracePeriodMs: 0, inactivityTimeoutMs: 0, queueCountAlert: 0 });
  });
});
