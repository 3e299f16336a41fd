import { describe, expect, it } from 'vitest';
import { definitionFromIopExport, iopExport, isIopExport } from './iop-export.ts';
import { newItem, type ProductionDefinition } from './production.ts';

function production(items: ProductionDefinition['items']): ProductionDefinition {
  return { name: 'Demo.Production', description: 'demo', testingEnabled: true, logGeneralTraceEvents: false, actorPoolSize: 2, items };
}

describe("IoP's export form", () => {
  it('keys the production by its name and writes every value as a string, xmltodict-style', () => {
    const definition = production([
      newItem('Out', 'Python.Out', { category: 'files', settings: [{ target: 'Host', name: 'path', value: '/tmp' }] }),
      newItem('Router', 'Python.Router', {
        enabled: false,
        poolSize: 3,
        settings: [
          { target: 'Host', name: 'TargetConfigNames', value: 'Out' },
          { target: 'Adapter', name: 'Charset', value: 'utf-8' },
        ],
      }),
    ]);
    expect(iopExport(definition)).toEqual({
      'Demo.Production': {
        '@Name': 'Demo.Production',
        '@TestingEnabled': 'true',
        '@LogGeneralTraceEvents': 'false',
        Description: 'demo',
        ActorPoolSize: '2',
        Item: [
          {
            '@Name': 'Out',
            '@Category': 'files',
            '@ClassName': 'Python.Out',
            '@PoolSize': '1',
            '@Enabled': 'true',
            '@Foreground': 'false',
            '@Comment': '',
            '@LogTraceEvents': 'false',
            '@Schedule': '',
            Setting: { '@Target': 'Host', '@Name': 'path', '#text': '/tmp' },
          },
          {
            '@Name': 'Router',
            '@Category': '',
            '@ClassName': 'Python.Router',
            '@PoolSize': '3',
            '@Enabled': 'false',
            '@Foreground': 'false',
            '@Comment': '',
            '@LogTraceEvents': 'false',
            '@Schedule': '',
            Setting: [
              { '@Target': 'Host', '@Name': 'TargetConfigNames', '#text': 'Out' },
              { '@Target': 'Adapter', '@Name': 'Charset', '#text': 'utf-8' },
            ],
          },
        ],
      },
    });
  });

  it('writes a single item as an object and leaves out what is absent', () => {
    const exported = iopExport(production([newItem('Only', 'Python.Only')]))['Demo.Production'];
    expect(exported?.Item).toEqual(expect.objectContaining({ '@Name': 'Only' }));
    expect(exported?.Item).not.toHaveProperty('Setting');
    expect(iopExport(production([]))['Demo.Production']).not.toHaveProperty('Item');
  });

  it('reads back what it writes, and the {"Production": …} key of the CLI export', () => {
    const definition = production([
      newItem('A', 'Python.A', { category: 'c', poolSize: 0, settings: [{ target: 'Adapter', name: 'x', value: '1' }] }),
      newItem('B', 'Python.B', { enabled: false, foreground: true, logTraceEvents: true, comment: 'note', schedule: 'START:*-*-*T08:00:00' }),
    ]);
    const exported = iopExport(definition);
    expect(isIopExport(exported)).toBe(true);
    expect(definitionFromIopExport(exported)).toEqual(definition);
    const cliForm = { Production: exported['Demo.Production'] as object };
    expect(definitionFromIopExport(cliForm)).toEqual(definition);
  });

  it('writes production-level settings as IoP 4 does and reads them back, with or without IRIS\'s Target="Production"', () => {
    const definition = production([newItem('A', 'Python.A')]);
    definition.settings = [
      { name: 'ShutdownTimeout', value: '300' },
      { name: 'AlertNotificationRecipients', value: 'ops@example.com' },
    ];
    const exported = iopExport(definition);
    expect(exported['Demo.Production']?.Setting).toEqual([
      { '@Name': 'ShutdownTimeout', '#text': '300' },
      { '@Name': 'AlertNotificationRecipients', '#text': 'ops@example.com' },
    ]);
    expect(definitionFromIopExport(exported)).toEqual(definition);
    const fromIris = definitionFromIopExport({ P: { '@Name': 'P', Setting: { '@Target': 'Production', '@Name': 'UpdateTimeout', '#text': '20' } } });
    expect(fromIris.settings).toEqual([{ name: 'UpdateTimeout', value: '20' }]);
    expect(iopExport(production([]))['Demo.Production']).not.toHaveProperty('Setting');
  });

  it('refuses a production-level setting with an item target, no name, or given twice', () => {
    expect(() => definitionFromIopExport({ P: { '@Name': 'P', Setting: { '@Target': 'Host', '@Name': 'ShutdownTimeout', '#text': '1' } } })).toThrow(
      /production P setting 1: @Target of a production-level setting must be Production or absent, not "Host"/,
    );
    expect(() => definitionFromIopExport({ P: { '@Name': 'P', Setting: { '#text': '1' } } })).toThrow(/production P setting 1: @Name must not be empty/);
    expect(() =>
      definitionFromIopExport({
        P: {
          '@Name': 'P',
          Setting: [
            { '@Name': 'UpdateTimeout', '#text': '1' },
            { '@Name': 'UpdateTimeout', '#text': '2' },
          ],
        },
      }),
    ).toThrow(/production P setting 2: the setting UpdateTimeout is given twice/);
  });

  it('reads IRIS-style 1/0 flags and fills the defaults of absent attributes', () => {
    const read = definitionFromIopExport({ P: { '@Name': 'P', Item: { '@Name': 'I', '@ClassName': 'Python.I', '@Enabled': '0' } } });
    expect(read).toEqual({
      name: 'P',
      description: '',
      testingEnabled: false,
      logGeneralTraceEvents: false,
      actorPoolSize: 2,
      items: [{ ...newItem('I', 'Python.I'), enabled: false }],
    });
  });

  it('refuses what is not a definition, naming the item and field', () => {
    expect(isIopExport({ name: 'P', items: [] })).toBe(false);
    expect(() => definitionFromIopExport({ P: { '@Name': 'P', Item: [{ '@Name': 'I', '@ClassName': 'x', '@PoolSize': 'many' }] } })).toThrow(
      /item I: @PoolSize must be a whole number, not "many"/,
    );
    expect(() => definitionFromIopExport({ P: { '@Name': 'P', Item: [{ '@Name': 'I' }] } })).toThrow(/item I: @ClassName must not be empty/);
    expect(() =>
      definitionFromIopExport({
        P: {
          '@Name': 'P',
          Item: [
            { '@Name': 'I', '@ClassName': 'x' },
            { '@Name': 'I', '@ClassName': 'y' },
          ],
        },
      }),
    ).toThrow(/item I: two items have this name/);
    expect(() =>
      definitionFromIopExport({ P: { '@Name': 'P', Item: { '@Name': 'I', '@ClassName': 'x', Setting: { '@Target': 'Other', '@Name': 's' } } } }),
    ).toThrow(/@Target must be Host or Adapter/);
  });
});
