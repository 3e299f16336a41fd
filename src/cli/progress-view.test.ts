import { describe, expect, it } from 'vitest';
import { createProgressView, progressStyle } from './progress-view.ts';

const tty = { stdoutIsTty: true, stderrIsTty: true };

describe('progressStyle', () => {
  it('is live on a terminal and plain when stdout or stderr is not one', () => {
    expect(progressStyle({ env: {}, ...tty })).toBe('live');
    expect(progressStyle({ env: {}, stdoutIsTty: false, stderrIsTty: true })).toBe('plain');
    expect(progressStyle({ env: {}, stdoutIsTty: true, stderrIsTty: false })).toBe('plain');
    expect(progressStyle({ env: { TERM: 'dumb' }, ...tty })).toBe('plain');
  });

  it('CONVEYOR_PROGRESS chooses; another value is ignored', () => {
    expect(progressStyle({ env: { CONVEYOR_PROGRESS: 'off' }, ...tty })).toBe('off');
    expect(progressStyle({ env: { CONVEYOR_PROGRESS: 'live' }, stdoutIsTty: false, stderrIsTty: false })).toBe('live');
    expect(progressStyle({ env: { CONVEYOR_PROGRESS: 'plain' }, ...tty })).toBe('plain');
    expect(progressStyle({ env: { CONVEYOR_PROGRESS: 'fancy' }, ...tty })).toBe('live');
  });
});

function recorder() {
  const lines: string[] = [];
  let raw = '';
  return { io: { err: (line: string) => lines.push(line) }, terminal: { write: (text: string) => (raw += text), columns: 60 }, lines, raw: () => raw };
}

describe('createProgressView', () => {
  it('plain: one line per event, nothing else', () => {
    const out = recorder();
    const view = createProgressView('plain', 'Starting P', out.io, out.terminal);
    view.setTotal(2);
    view.event('A started', { counts: true });
    view.event('B failed to start: boom', { counts: true, failure: true });
    view.finish();
    expect(out.lines).toEqual(['A started', 'B failed to start: boom']);
    expect(out.raw()).toBe('');
  });

  it('off: nothing at all, but other output still prints', () => {
    const out = recorder();
    const view = createProgressView('off', 'Starting P', out.io, out.terminal);
    let printed = false;
    view.event('A started', { counts: true });
    view.print(() => (printed = true));
    view.finish();
    expect(printed).toBe(true);
    expect(out.lines).toEqual([]);
    expect(out.raw()).toBe('');
  });

  it('live: redraws one line with the bar and the last event, keeps failures, and clears the line at the end', () => {
    const out = recorder();
    const view = createProgressView('live', 'Starting P', out.io, out.terminal);
    view.setTotal(2);
    view.event('A started', { counts: true });
    expect(out.raw().split('\r\x1b[2K').at(-1)).toMatch(/^. Starting P \[█{10}░{10}\] 1\/2 · A started$/);
    view.event('B failed to start: boom', { counts: true, failure: true });
    expect(out.raw()).toContain('\r\x1b[2KB failed to start: boom\n');
    expect(out.raw().split('\r\x1b[2K').at(-1)).toContain('2/2');
    view.finish();
    expect(out.raw().endsWith('\r\x1b[2K')).toBe(true);
    expect(out.lines).toEqual([]);
  });

  it('live: a line longer than the terminal is cut, and other output is printed on a cleared line', () => {
    const out = recorder();
    const view = createProgressView('live', 'Starting P', out.io, out.terminal);
    view.event(`${'x'.repeat(100)} started`);
    const drawn = out.raw().split('\r\x1b[2K').at(-1)!;
    expect([...drawn]).toHaveLength(59);
    expect(drawn.endsWith('…')).toBe(true);
    const before = out.raw().length;
    view.print(() => out.terminal.write('log line\n'));
    expect(out.raw().slice(before).startsWith('\r\x1b[2Klog line\n')).toBe(true);
    view.finish();
  });
});
