import { describe, expect, it } from 'vitest';
import { ConveyorError } from '../core/errors.ts';
import { transformCompiler, transformName } from './transform-compiler.ts';

const document = { namespace: 'USER', name: 'Demo.Map.cls', text: 'Class Demo.Map Extends Ens.DataTransformDTL {}', kind: 'dtl-transform' as const };

function failingWith(error: Error) {
  return {
    namespace: async () => ({
      dtl: {
        putTransform: async (): Promise<never> => {
          throw error;
        },
      },
    }),
  };
}

describe('transformCompiler', () => {
  it('stores the class as a transform named after the class', async () => {
    const stored: unknown[] = [];
    const compile = transformCompiler({
      namespace: async (namespace) => ({
        dtl: {
          putTransform: async (name: string, source: string) => {
            stored.push([namespace, name, source]);
            return { name, source, version: 3, updatedAt: 0 };
          },
        },
      }),
    });
    expect(await compile(document)).toEqual({ console: ['Demo.Map.cls: compiled as transform Demo.Map (version 3)'], errors: [] });
    expect(stored).toEqual([['USER', 'Demo.Map', document.text]]);
  });

  it('turns positioned DTL errors into compile errors, ignoring warnings', async () => {
    const compile = transformCompiler(
      failingWith(
        new ConveyorError('ERR_DTL', 'The transform has errors', {
          details: [
            { line: 12, column: 5, severity: 'error', message: 'unknown action <bogus>' },
            { line: 3, column: 1, severity: 'warning', message: 'unused' },
          ],
        }),
      ),
    );
    expect(await compile(document)).toEqual({ console: [], errors: ['Demo.Map.cls line 12:5: unknown action <bogus>'] });
  });

  it('reports a failure without diagnostics, and an unknown namespace', async () => {
    expect((await transformCompiler(failingWith(new Error('store is closed')))(document)).errors).toEqual(['Demo.Map.cls: store is closed']);
    const noNamespace = transformCompiler({
      namespace: async (name) => {
        throw new ConveyorError('ERR_NAMESPACE_UNKNOWN', `Namespace ${name} does not exist`);
      },
    });
    expect((await noNamespace(document)).errors).toEqual(['Demo.Map.cls: Namespace USER does not exist']);
  });

  it('names a transform after its document', () => {
    expect(transformName('A.B.C.cls')).toBe('A.B.C');
  });
});
