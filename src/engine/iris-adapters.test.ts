import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { irisPythonAdapters, isIrisClassName, supportedIrisAdapters } from './iris-adapters.ts';

const pythonRoot = fileURLToPath(new URL('../../python/', import.meta.url));

describe('the IRIS adapters Conveyor provides', () => {
  it('each name a Python class that exists in python/conveyor_host/enslib', () => {
    for (const [name, { module, className }] of irisPythonAdapters) {
      const file = `${pythonRoot}${module.split('.').join('/')}.py`;
      expect(existsSync(file), `${name}: ${file}`).toBe(true);
      expect(readFileSync(file, 'utf8')).toContain(`class ${className}(`);
    }
    expect(supportedIrisAdapters).toEqual(['Ens.InboundAdapter', 'EnsLib.File.InboundAdapter', 'EnsLib.File.OutboundAdapter', 'EnsLib.HTTP.OutboundAdapter']);
  });

  it("tell IRIS's own class names from user class names", () => {
    expect(['EnsLib.EMail.OutboundAdapter', 'Ens.Alert', '%Library.String', 'HS.FHIR.X'].every(isIrisClassName)).toBe(true);
    expect(['Python.MyAdapter', 'Ensemble.X', 'Demo.Ens.X'].some(isIrisClassName)).toBe(false);
  });
});
