import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newItem, type ItemSetting } from '../core/production.ts';
import { tempDir } from '../../test/support/temp-dir.ts';
import { itemDebugListen, itemInterpreter } from './item-python.ts';

const host = (name: string, value: string): ItemSetting => ({ target: 'Host', name, value });

describe("an item's interpreter", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
    mkdirSync(join(dir.path, 'venv', 'bin'), { recursive: true });
    writeFileSync(join(dir.path, 'venv', 'bin', 'python'), '');
  });
  afterEach(() => dir.remove());

  const defaults = (byProduction: Record<string, string> = {}) => ({ interpreter: 'python3', byProduction });

  it('is the %python setting first, then the production entry, then the server default', async () => {
    const own = { production: 'P', item: newItem('A', 'C', { settings: [host('%python', 'python3.12')] }) };
    const plain = { production: 'P', item: newItem('B', 'C') };
    expect(await itemInterpreter(own, defaults({ P: join(dir.path, 'venv') }), undefined)).toBe('python3.12');
    expect(await itemInterpreter(plain, defaults({ P: join(dir.path, 'venv') }), undefined)).toBe(join(dir.path, 'venv', 'bin', 'python'));
    expect(await itemInterpreter(plain, defaults({ Q: join(dir.path, 'venv') }), undefined)).toBe('python3');
    expect(await itemInterpreter(undefined, defaults(), undefined)).toBe('python3');
  });

  it('reads a relative %python from the classpath and takes a venv folder as its bin/python', async () => {
    const relative = { production: 'P', item: newItem('A', 'C', { settings: [host('%python', '../venv')] }) };
    expect(await itemInterpreter(relative, defaults(), join(dir.path, 'code'))).toBe(join(dir.path, 'venv', 'bin', 'python'));
  });
});

describe("an item's debugger", () => {
  it('is off without %debugpy or CONVEYOR_DEBUGPY naming the item, and with %debugpy off', () => {
    expect(itemDebugListen(newItem('A', 'C'), {})).toBeNull();
    expect(itemDebugListen(newItem('A', 'C', { settings: [host('%debugpy', 'off')] }), { CONVEYOR_DEBUGPY: 'A=5678' })).toBeNull();
    expect(itemDebugListen(newItem('A', 'C'), { CONVEYOR_DEBUGPY: 'B=5678' })).toBeNull();
  });

  it('listens where %debugpy says, waiting when %debugpy_wait is true', () => {
    expect(itemDebugListen(newItem('A', 'C', { settings: [host('%debugpy', '5678')] }), {})).toEqual({ host: '127.0.0.1', port: 5678, wait: false });
    expect(itemDebugListen(newItem('A', 'C', { settings: [host('%debugpy', '0.0.0.0:5679'), host('%debugpy_wait', 'true')] }), {})).toEqual({
      host: '0.0.0.0',
      port: 5679,
      wait: true,
    });
  });

  it('takes the item from CONVEYOR_DEBUGPY when the production does not say', () => {
    const environment = { CONVEYOR_DEBUGPY: 'Router=5678/wait, Desk=127.0.0.1:5680' };
    expect(itemDebugListen(newItem('Router', 'C'), environment)).toEqual({ host: '127.0.0.1', port: 5678, wait: true });
    expect(itemDebugListen(newItem('Desk', 'C'), environment)).toEqual({ host: '127.0.0.1', port: 5680, wait: false });
  });

  it('refuses an address that is not a port, naming where it came from', () => {
    expect(() => itemDebugListen(newItem('A', 'C', { settings: [host('%debugpy', '70000')] }), {})).toThrow(
      'Item A: %debugpy must be a port or host:port, got "70000"',
    );
    expect(() => itemDebugListen(newItem('A', 'C'), { CONVEYOR_DEBUGPY: 'A=soon' })).toThrow(
      'CONVEYOR_DEBUGPY for item A must be a port or host:port, got "soon"',
    );
  });
});
