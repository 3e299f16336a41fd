import { describe, expect, it } from 'vitest';
import { isConveyorError } from '../core/errors.ts';
import { parseCommandLine } from './command-line.ts';

function usageError(argv: string[]): string {
  try {
    parseCommandLine(argv);
  } catch (error) {
    if (isConveyorError(error, 'ERR_USAGE')) return error.message;
    throw error;
  }
  throw new Error(`${argv.join(' ')} parsed without error`);
}

/** [action, value] of a command line. */
function actionValue(argv: string[]): [string, string | undefined] {
  const parsed = parseCommandLine(argv);
  return [parsed.action, parsed.value];
}

describe('parseCommandLine', () => {
  it('gives optional values argparse nargs="?" behaviour', () => {
    expect(actionValue(['-d'])).toEqual(['default', undefined]);
    expect(actionValue(['-d', 'P1'])).toEqual(['default', 'P1']);
    expect(actionValue(['-dP1'])).toEqual(['default', 'P1']);
    expect(actionValue(['--default=P1'])).toEqual(['default', 'P1']);
    expect(actionValue(['-e'])).toEqual(['export', undefined]);
    expect(actionValue(['--export', 'X'])).toEqual(['export', 'X']);
    expect(actionValue(['-i'])).toEqual(['init', undefined]);
    expect(actionValue(['-i', 'cls'])).toEqual(['init', 'cls']);
    expect(actionValue(['-t'])).toEqual(['test', undefined]);
  });

  it('maps every action flag, short and long', () => {
    const cases: [string[], string][] = [
      [['-l'], 'list'],
      [['--list'], 'list'],
      [['-s', 'P'], 'start'],
      [['--start'], 'start'],
      [['-S'], 'stop'],
      [['--stop'], 'stop'],
      [['-k'], 'kill'],
      [['--kill'], 'kill'],
      [['-r'], 'restart'],
      [['--restart'], 'restart'],
      [['-u'], 'update'],
      [['--update'], 'update'],
      [['-x'], 'status'],
      [['--status'], 'status'],
      [['-m', 'a.py'], 'migrate'],
      [['-M', 'a.py'], 'migrate'],
      [['--migrate', 'a.py'], 'migrate'],
      [['-v'], 'version'],
      [['--version'], 'version'],
      [['-L'], 'log'],
      [['--log'], 'log'],
      [['-h'], 'help'],
      [['--help'], 'help'],
      [[], 'help'],
      [['-n', 'NS'], 'help'],
    ];
    for (const [argv, action] of cases) expect(parseCommandLine(argv).action, argv.join(' ')).toBe(action);
  });

  it('reads the modifiers', () => {
    expect(parseCommandLine(['-s', 'P', '-D'])).toMatchObject({ action: 'start', value: 'P', detach: true });
    expect(parseCommandLine(['-s', '-D'])).toMatchObject({ action: 'start', detach: true });
    expect(parseCommandLine(['-s', '-D']).value).toBeUndefined();
    expect(parseCommandLine(['-t', 'Op', '-C', 'msg.Req', '-B', '{"a":1}'])).toMatchObject({ value: 'Op', classname: 'msg.Req', body: '{"a":1}' });
    expect(parseCommandLine(['-l', '-n', 'NS', '-R', 'r.py', '--force-local'])).toMatchObject({ namespace: 'NS', remoteSettings: 'r.py', forceLocal: true });
    expect(parseCommandLine(['-m', 'settings.py'])).toMatchObject({ value: 'settings.py' });
  });

  it('reads -L N as a count', () => {
    expect(parseCommandLine(['-L', '5'])).toMatchObject({ action: 'log', logCount: 5 });
    expect(parseCommandLine(['-L']).logCount).toBeUndefined();
    expect(usageError(['-L', 'abc'])).toBe("-L takes a number of entries, not 'abc'");
  });

  it('reads --import-schema FILE PACKAGE NAME', () => {
    expect(parseCommandLine(['--import-schema', 's.json', 'Demo', 'Person'])).toMatchObject({
      action: 'importSchema',
      schemaImport: { path: 's.json', package: 'Demo', name: 'Person' },
    });
    expect(usageError(['--import-schema', 's.json', 'Demo'])).toContain('three values');
  });

  it('refuses two actions at once', () => {
    expect(usageError(['-l', '-x'])).toBe('-l and -x cannot be used together: give one action per command');
    expect(usageError(['-d', '-e'])).toContain('-d and -e cannot be used together');
    expect(usageError(['-m', 'a', '-M', 'b'])).toContain('-m and -M');
  });

  it('lets -h win over another action, as argparse does', () => {
    expect(parseCommandLine(['-l', '-h'])).toMatchObject({ action: 'help' });
  });

  it('refuses unknown options, missing values and stray arguments', () => {
    expect(usageError(['-z'])).toBe("unknown option '-z'");
    expect(usageError(['-m'])).toContain("'-m, --migrate <path>' argument missing");
    expect(usageError(['-M'])).toContain("'-M <path>' argument missing");
    expect(usageError(['-n'])).toContain('argument missing');
    expect(usageError(['-l', 'extra'])).toContain("unexpected argument 'extra'");
  });

  it('refuses modifiers without their action', () => {
    expect(usageError(['-D'])).toBe('-D/--detach only goes with -s/--start');
    expect(usageError(['-l', '-D'])).toContain('-D/--detach');
    expect(usageError(['-C', 'x'])).toContain('only go with -t/--test');
    expect(usageError(['-l', '-B', '{}'])).toContain('only go with -t/--test');
  });
});
