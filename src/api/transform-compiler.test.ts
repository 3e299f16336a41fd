import { describe, expect, it } from 'vitest';
import { ConveyorError } from '../core/errors.ts';
import { transformCompiler, transformName } from './transform-compiler.ts';

const document = { namespace: 'USER', name: 'Demo.Map.cls', text: 'Class Demo.Map Extends Ens.DataTransformDTL {}', kind: 'dtl-transform' as const };

describe('transformCompiler', () => {
  it('stores the class as a transform named after the class', async () => {
    const stored: unknown[] = [];
    const compile = transformCompiler(() => ({
      putTransform: async (namespace: string, name: string, source: string) => {
        stored.push([namespace, name, source]);
        return { name, source, version: 3, updatedAt: 0 };
      },
    }));
    expect(await compile(document)).toEqual({ console: ['Demo.Map.cls: compiled as transform Demo.Map (version 3)'], errors: [] });
    expect(stored).toEqual([['USER', 'Demo.Map', document.text]]);
  });

  it('turns positioned DTL errors into compile errors, ignoring warnings', async () => {
    const compile = transformCompiler(() => ({
      putTransform: async () => {
        throw new ConveyorError('ERR_DTL', 'The transform has errors', {
          details: [
            { line: 12, column: 5, severity: 'error', message: 'unknown action <bogus>' },
            { line: 3, column: 1, severity: 'warning', message: 'unused' },
          ],
        });
      },
    }));
    expect(await compile(document)).toEqual({ console: [], errors: ['Demo.Map.cls line 12:5: unknown action <bogus>'] });
  });

  it('reports a failure without diagnostics, and a missing DTL service', async () => {
    const failing = transformCompiler(() => ({
      putTransform: async () => {
        throw new Error('store is closed');
      },
    }));
    expect((await failing(document)).errors).toEqual(['Demo.Map.cls: store is closed']);
    expect((await transformCompiler(() => undefined)(document)).errors).toEqual(["Demo.Map.cls: is a DTL transform, but this server's engine has no DTL service"]);
  });

  it('names a transform after its document', () => {
    expect(transformName('A.B.C.cls')).toBe('A.B.C');
  });
});
