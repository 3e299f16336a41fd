/**
 * Reading a settings.py through the bridge (a real python3 worker): what the file prints does not
 * reach the document, a file that raises arrives as a structured failure, and a file that never
 * finishes loading is ended by the budget.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isConveyorError } from '../../core/errors.ts';
import { defaultInterpreter, isPythonError, type PythonError } from '../../bridge/index.ts';
import { runSettingsScript } from './settings-script.ts';
import { processExists } from '../../core/process-exists.ts';

function settingsFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'conveyor-settings-')), 'settings.py');
  writeFileSync(path, text);
  return path;
}

describe('runSettingsScript', () => {
  it('keeps what the file prints out of the document', async () => {
    const path = settingsFile(`import sys
from iop import BusinessOperation
print('{"classes": [], "productions": [], "schemas": [], "missing": []}')
print('noise on stderr', file=sys.stderr)

class Op(BusinessOperation):
    print('printing from a class body')

CLASSES = {'Python.Op': Op}
`);
    const document = await runSettingsScript(path, defaultInterpreter(), 60_000);
    expect(document.classes.map((c) => [c.name, c.module, c.className])).toEqual([['Python.Op', 'settings', 'Op']]);
    expect(document.missing).toEqual(['productions', 'schemas']);
  });

  it('raises a failing file as ERR_MIGRATION carrying the structured failure and the user frame', async () => {
    const path = settingsFile(`x = 1

raise ValueError('bad settings')
`);
    const error = await runSettingsScript(path, defaultInterpreter(), 60_000).catch((e: unknown) => e);
    expect(isConveyorError(error, 'ERR_MIGRATION')).toBe(true);
    expect(isPythonError(error)).toBe(true);
    expect((error as Error).message).toBe(`${path}: loading the file failed: ValueError: bad settings`);
    const failure = (error as PythonError).failure;
    expect(failure).toMatchObject({ step: 'migrate', userFrame: { file: path, line: 3, function: '<module>' } });
    expect(failure.traceback).toContain('ValueError: bad settings');
  });

  it('names what a file that exits raised, rather than an empty message', async () => {
    const path = settingsFile('import sys\nsys.exit(3)\n');
    const error = await runSettingsScript(path, defaultInterpreter(), 60_000).catch((e: unknown) => e);
    expect(isConveyorError(error, 'ERR_MIGRATION')).toBe(true);
    expect((error as Error).message).toBe(`${path}: SystemExit: 3 (at settings.py:2 in <module>)`);
  });

  it('ends the worker of a file whose loading never finishes', async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), 'conveyor-settings-pid-')), 'pid');
    const path = settingsFile(`import os
with open(${JSON.stringify(pidFile)}, 'w') as out:
    out.write(str(os.getpid()))
while True:
    pass
`);
    const error = await runSettingsScript(path, defaultInterpreter(), 2000).catch((e: unknown) => e);
    expect(isConveyorError(error, 'ERR_MIGRATION')).toBe(true);
    expect((error as Error).message).toBe(`${path}: loading the file did not finish within 2000 ms (does it wait for something at import time?)`);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await expect.poll(() => !processExists(pid), { timeout: 10_000 }).toBe(true);
  });
});
