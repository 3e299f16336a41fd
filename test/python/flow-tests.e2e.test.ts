/**
 * The flow-test helper of the Python SDK (python/conveyor_testing), run as its users run it: the
 * example's unittest suite (examples/order-flow/tests) against a real server it starts on a
 * throwaway home, and a pytest suite with a wrong expectation, which must fail saying what reached
 * where. Neither leaves its home behind.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const pytestInstalled = spawnSync('python3', ['-c', 'import pytest'], { encoding: 'utf8' }).status === 0;

function python(args: string[]) {
  return spawnSync('python3', args, {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 240_000,
    env: { ...process.env, PYTHONPATH: 'python', PYTHONDONTWRITEBYTECODE: '1', CONVEYOR_HOME: '' },
  });
}

const flowHomes = () => readdirSync(tmpdir()).filter((name) => name.startsWith('conveyor-flow-'));

describe('flow tests with conveyor_testing', () => {
  it("runs the order-flow example's unittest suite green", () => {
    const before = new Set(flowHomes());
    const run = python(['-m', 'unittest', 'discover', '-s', 'examples/order-flow/tests', '-v']);
    expect(run.stderr).toMatch(/Ran 4 tests in [\d.]+s\n\nOK\n$/);
    expect(run.status).toBe(0);
    expect(flowHomes().filter((name) => !before.has(name))).toEqual([]);
  }, 250_000);

  it('refuses a missing settings file and an unknown production with FlowError, stopping the server it started', () => {
    const before = new Set(flowHomes());
    const script = [
      'from conveyor_testing import Flow, FlowError',
      'for args in [("examples/order-flow/nothing.py",), ("examples/order-flow/settings.py", "No.Such.Production")]:',
      '    try:',
      '        Flow.start(*args)',
      '    except FlowError as error:',
      '        print("refused:", error)',
    ].join('\n');
    const run = python(['-c', script]);
    expect(run.stderr).toBe('');
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toBe(`refused: No settings file ${repoRoot}examples/order-flow/nothing.py`);
    expect(lines[1]).toMatch(/^refused: POST \/start: .*No\.Such\.Production/);
    expect(flowHomes().filter((name) => !before.has(name))).toEqual([]);
  }, 250_000);

  // pytest is not part of the project's requirements (the SDK is standard library only).
  it.skipIf(!pytestInstalled)(
    'fails a pytest flow test that expects a message where none arrived, saying what reached where',
    () => {
      const run = python(['-m', 'pytest', '-p', 'no:cacheprovider', 'test/fixtures/flow/test_wrong_expectation.py']);
      expect(run.status).toBe(1);
      expect(run.stdout).toContain('1 failed, 1 passed');
      expect(run.stdout).toMatch(/AssertionError: 1 message\(s\) expected to reach SmallOrders within 2 s, 0 did: \[\]/);
      expect(run.stdout).toContain('order 2 (5000.0) -> BigOrders');
    },
    250_000,
  );
});
