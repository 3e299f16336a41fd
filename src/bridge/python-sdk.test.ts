import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { defaultInterpreter, pythonSdkDir } from './index.ts';

// The SDK's pure parts (serialization, dispatch, iris shim, settings) have stdlib unittest suites in
// python/tests; this runs them with the interpreter the workers use.
describe('python SDK unit suites', () => {
  it('pass under python3 -m unittest', () => {
    // Bounded: a suite that hangs is stopped with SIGABRT, and faulthandler prints every thread's
    // stack into the output this test shows.
    const run = spawnSync(defaultInterpreter(), ['-X', 'faulthandler', '-m', 'unittest', 'discover', '-v', '-s', 'tests', '-t', '.'], {
      cwd: pythonSdkDir,
      encoding: 'utf8',
      timeout: 120_000,
      killSignal: 'SIGABRT',
    });
    const output = `${run.stdout}${run.stderr}`;
    expect(output, output).toMatch(/\nOK\s*$/);
    const ran = Number(/Ran (\d+) tests?/.exec(output)?.[1] ?? 0);
    expect(ran).toBeGreaterThanOrEqual(51);
    expect(run.status).toBe(0);
  });
});
