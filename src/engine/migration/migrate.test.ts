import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isConveyorError, type ConveyorError } from '../../core/errors.ts';
import { openStore } from '../../store/open-store.ts';
import type { Store } from '../../store/store.ts';
import { migrateSettings } from './migrate.ts';

const fixtureDir = fileURLToPath(new URL('../../../test/fixtures/python/migration', import.meta.url));
const settingsPath = join(fixtureDir, 'settings.py');

let store: Store;
let workDir: string;

beforeEach(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'conveyor-migrate-'));
  store = await openStore({ sqlitePath: join(workDir, 'store.sqlite'), durability: 'normal' });
});

afterEach(async () => {
  await store.close();
});

/** A settings folder written for one test (fixtures on disk are never mutated). */
function settingsFolder(files: Record<string, string>): string {
  const folder = mkdtempSync(join(workDir, 'pkg-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(folder, name, '..'), { recursive: true });
    writeFileSync(join(folder, name), text);
  }
  return join(folder, 'settings.py');
}

async function failure(path: string): Promise<Error> {
  const error = await migrateSettings(store, 'USER', path).catch((e: unknown) => e);
  expect(isConveyorError(error, 'ERR_MIGRATION')).toBe(true);
  return error as Error;
}

describe('migrateSettings with an IoP-style package', () => {
  it('registers every CLASSES form with kind, module, classpaths, settings and adapter type', async () => {
    const report = await migrateSettings(store, 'USER', settingsPath);
    expect(report.classes.sort()).toEqual(
      [
        'Adapters.adapter.FolderInboundAdapter',
        'Adapters.adapter.HeartbeatAdapter',
        'File.extra.ExtraOperation',
        'Folder.extra.ExtraOperation',
        'Pkg.myops.QuietOperation',
        'Python.Extra',
        'Python.FileOperation',
        'Python.PollingService',
        'Python.bp.bp.FilterProcess',
        'UnitTest.MySettingOperation',
      ].sort(),
    );
    const fileOp = await store.classes.get('USER', 'Python.FileOperation');
    expect(fileOp).toMatchObject({
      kind: 'operation',
      runtime: 'python',
      module: 'bo',
      className: 'FileOperation',
      classpaths: [fixtureDir],
      adapterType: 'EnsLib.File.OutboundAdapter',
      settings: [{ name: 'path', type: 'str', defaultValue: '/tmp', description: '' }],
    });
    expect(await store.classes.get('USER', 'Python.PollingService')).toMatchObject({ kind: 'service', adapterType: 'Ens.InboundAdapter' });
    expect(await store.classes.get('USER', 'Pkg.myops.QuietOperation')).toMatchObject({
      module: 'my_ops',
      className: 'Quiet_Operation',
      classpaths: [fixtureDir, join(fixtureDir, 'pkg')],
    });
    expect(await store.classes.get('USER', 'File.extra.ExtraOperation')).toMatchObject({
      module: 'extra',
      classpaths: [fixtureDir, join(fixtureDir, 'other')],
    });
    expect(await store.classes.get('USER', 'Adapters.adapter.FolderInboundAdapter')).toMatchObject({ kind: 'inbound_adapter' });
    expect(await store.classes.get('USER', 'Folder.extra.ExtraOperation')).toMatchObject({
      module: 'extra',
      className: 'ExtraOperation',
      classpaths: [fixtureDir, join(fixtureDir, 'other')],
    });
    const settingOp = await store.classes.get('USER', 'UnitTest.MySettingOperation');
    // IoP 4's metadata rides along: datatype, category, required, editor control, target flag.
    const plain = { category: '', required: false, control: '', isTarget: false };
    expect(settingOp?.settings).toEqual([
      { name: 'my_bool_var', type: 'bool', defaultValue: '0', description: '', dataType: 'Boolean', ...plain },
      { name: 'my_float_var', type: 'float', defaultValue: '0.0', description: '', dataType: 'Numeric', ...plain },
      { name: 'my_int_var', type: 'int', defaultValue: '0', description: '', dataType: 'Integer', ...plain },
      { name: 'my_none_var', type: 'str', defaultValue: null, description: '', dataType: 'String', ...plain },
      { name: 'my_str_var', type: 'str', defaultValue: 'foo', description: '', dataType: 'String', ...plain },
      { name: 'my_untyped_var', type: 'str', defaultValue: null, description: '', dataType: 'String', ...plain },
    ]);
  });

  it('stores PRODUCTIONS with typed attributes, settings and class-valued @ClassName under the item name', async () => {
    const report = await migrateSettings(store, 'USER', settingsPath);
    expect(report.productions).toEqual(['dc.Python.Production', 'Python.TestSettingProduction']);
    const empty = await store.productions.get('USER', 'dc.Python.Production');
    expect(empty?.definition).toEqual({
      name: 'dc.Python.Production',
      description: '',
      testingEnabled: true,
      logGeneralTraceEvents: false,
      actorPoolSize: 2,
      items: [],
    });
    const settings = (await store.productions.get('USER', 'Python.TestSettingProduction'))!.definition;
    expect(settings).toMatchObject({ description: 'Typed settings reach the component', testingEnabled: true, actorPoolSize: 1 });
    expect(settings.items).toEqual([
      {
        name: 'UnitTest.MySettingOperation',
        classname: 'UnitTest.MySettingOperation',
        category: '',
        poolSize: 1,
        enabled: true,
        foreground: false,
        comment: '',
        logTraceEvents: false,
        schedule: '',
        settings: [
          { target: 'Host', name: 'my_int_var', value: '1' },
          { target: 'Host', name: 'my_float_var', value: '1.0' },
          { target: 'Host', name: 'my_untyped_var', value: '1' },
          { target: 'Host', name: 'my_str_var', value: 'bar' },
        ],
      },
      expect.objectContaining({
        name: 'Python.FileOperation',
        classname: 'Python.FileOperation',
        enabled: false,
        settings: [{ target: 'Adapter', name: 'FilePath', value: '/tmp/out' }],
      }),
    ]);
  });

  it('stores SCHEMAS as pydantic-shaped JSON Schemas named module.Class', async () => {
    const report = await migrateSettings(store, 'USER', settingsPath);
    expect(report.schemas).toEqual(['message.SimpleMessage', 'message.ComplexMessage', 'message.TaskMessage']);
    const simple = await store.schemas.get('USER', 'message.SimpleMessage');
    expect(simple?.category).toBe('message.SimpleMessage');
    expect(JSON.parse(simple!.schema)).toEqual({
      properties: { integer: { default: null, title: 'Integer', type: 'integer' }, string: { default: null, title: 'String', type: 'string' } },
      title: 'SimpleMessage',
      type: 'object',
    });
    const complex = JSON.parse((await store.schemas.get('USER', 'message.ComplexMessage'))!.schema);
    expect(complex.properties.post).toEqual({ allOf: [{ $ref: '#/$defs/PostClass' }], default: null });
    expect(complex.properties.list_post).toEqual({ default: null, items: { allOf: [{ $ref: '#/$defs/PostClass' }] }, title: 'List Post', type: 'array' });
    expect(complex.properties.dict_int).toEqual({ additionalProperties: { type: 'integer' }, default: null, title: 'Dict Int', type: 'object' });
    expect(complex.$defs.PostClass.properties.CreatedUTC).toEqual({ default: null, title: 'Createdutc', type: 'number' });
    const task = JSON.parse((await store.schemas.get('USER', 'message.TaskMessage'))!.schema);
    expect(task.$defs.Status).toEqual({ enum: ['ACTIVE', 'INACTIVE', 'PENDING'], title: 'Status', type: 'string' });
    expect(task.$defs.TaskModel.required).toEqual(['name']);
    expect(task.$defs.TaskModel.properties.status).toEqual({ $ref: '#/$defs/Status', default: 'PENDING' });
  });

  it('reports what it registered and is idempotent', async () => {
    const first = await migrateSettings(store, 'USER', settingsPath);
    const second = await migrateSettings(store, 'USER', settingsPath);
    expect(second.output).toEqual(first.output);
    expect(first.output).toContain('Registered production Python.TestSettingProduction');
    expect(first.output).toContain('Registered schema message.SimpleMessage');
    expect((await store.classes.list('USER')).length).toBe(10);
  });
});

describe('migrateSettings: missing sections and errors', () => {
  it('prints the No … to register lines for missing sections, ignoring REMOTE_SETTINGS', async () => {
    const path = settingsFolder({ 'settings.py': "REMOTE_SETTINGS = {'url': 'http://localhost:8080'}\n" });
    const report = await migrateSettings(store, 'USER', path);
    expect(report).toEqual({
      classes: [],
      productions: [],
      schemas: [],
      output: ['No classes to register', 'No productions to register', 'No schemas to register'],
    });
  });

  it('names the file and the cause when the settings file cannot be loaded, without writing anything', async () => {
    const path = settingsFolder({ 'settings.py': 'from bo import Missing\nCLASSES = {}\n', 'bo.py': 'X = 1\n' });
    const error = await failure(path);
    expect(error.message).toBe(`${path}: loading the file failed: ImportError: cannot import name 'Missing' from 'bo' (${join(path, '..', 'bo.py')})`);
    expect(await store.classes.list('USER')).toEqual([]);
  });

  it('names the CLASSES entry that is invalid', async () => {
    const path = settingsFolder({ 'settings.py': "CLASSES = {'Python.Bad': 42}\n" });
    expect((await failure(path)).message).toBe(`${path}: CLASSES['Python.Bad']: Invalid value for Python.Bad: expected a class, a module or a dict, got int`);
  });

  it('names the class that is not a component', async () => {
    const path = settingsFolder({ 'settings.py': "class Plain:\n    pass\n\nCLASSES = {'Python.Plain': Plain}\n" });
    expect((await failure(path)).message).toContain("CLASSES['Python.Plain']: settings.Plain: No IOP superclass found");
  });

  it('names a module path that does not import', async () => {
    const path = settingsFolder({ 'settings.py': "CLASSES = {'Python.X': {'path': '.', 'module': 'nowhere', 'class': 'X'}}\n" });
    expect((await failure(path)).message).toBe(`${path}: CLASSES['Python.X']: ModuleNotFoundError: No module named 'nowhere'`);
  });

  it('rejects a production name without a package and an item without @ClassName', async () => {
    const undotted = settingsFolder({ 'settings.py': "PRODUCTIONS = [{'Production': {}}]\n" });
    expect((await failure(undotted)).message).toBe(
      `${undotted}: PRODUCTIONS[0] (Production): Invalid Production package or name: it needs a package, as in "Package.Name"`,
    );
    const noClass = settingsFolder({ 'settings.py': "PRODUCTIONS = [{'A.B': {'Item': [{'@Name': 'X'}]}}]\n" });
    expect((await failure(noClass)).message).toBe(`${noClass}: PRODUCTIONS[0] (A.B): item 'X' has no @ClassName`);
  });

  it('accepts the EnsLib classes and adapters Conveyor provides (IoP docs example production)', async () => {
    const path = settingsFolder({
      'settings.py': [
        'from iop import BusinessOperation',
        'class Writer(BusinessOperation):',
        '    @staticmethod',
        '    def get_adapter_type():',
        "        return 'EnsLib.HTTP.OutboundAdapter'",
        "CLASSES = {'Python.Writer': Writer}",
        "PRODUCTIONS = [{'Demo.Passthrough': {'Item': [",
        "  {'@Name': 'In', '@ClassName': 'EnsLib.File.PassthroughService', 'Setting': [{'@Target': 'Adapter', '@Name': 'FilePath', '#text': '/tmp/in'}]},",
        "  {'@Name': 'Out', '@ClassName': 'EnsLib.File.PassthroughOperation'}]}}]",
      ].join('\n'),
    });
    const report = await migrateSettings(store, 'USER', path);
    expect(report.productions).toEqual(['Demo.Passthrough']);
  });

  it('refuses an EnsLib class Conveyor does not provide and an unknown adapter, naming each, without writing anything', async () => {
    const path = settingsFolder({
      'settings.py': [
        'from iop import BusinessOperation, BusinessService',
        'class Mailer(BusinessOperation):',
        '    @staticmethod',
        '    def get_adapter_type():',
        "        return 'EnsLib.EMail.OutboundAdapter'",
        'class Poller(BusinessService):',
        '    @staticmethod',
        '    def get_adapter_type():',
        "        return 'Python.NoSuchAdapter'",
        "CLASSES = {'Python.Mailer': Mailer, 'Python.Poller': Poller}",
        "PRODUCTIONS = [{'Demo.P': {'Item': [{'@Name': 'Hl7In', '@ClassName': 'EnsLib.HL7.Service.FileService'}]}}]",
      ].join('\n'),
    });
    const error = await failure(path);
    expect(error.message).toBe(
      'Unknown classes: item Hl7In of production Demo.P uses EnsLib.HL7.Service.FileService, an IRIS class Conveyor does not provide; ' +
        'Python.Mailer names the adapter EnsLib.EMail.OutboundAdapter, an IRIS adapter Conveyor does not provide; ' +
        'Python.Poller names the adapter Python.NoSuchAdapter, which is neither registered nor in CLASSES',
    );
    expect((error as ConveyorError).hint).toBe(
      'Conveyor provides EnsLib.File.PassthroughService, EnsLib.File.PassthroughOperation, EnsLib.MsgRouter.RoutingEngine and the adapters ' +
        'Ens.InboundAdapter, EnsLib.File.InboundAdapter, EnsLib.File.OutboundAdapter, EnsLib.HTTP.OutboundAdapter (docs/enslib.md)',
    );
    expect(await store.classes.list('USER')).toEqual([]);
    expect(await store.productions.list('USER')).toEqual([]);
  });

  it('accepts an adapter registered by an earlier migration', async () => {
    const adapter = settingsFolder({
      'settings.py': ['from iop import InboundAdapter', 'class Feed(InboundAdapter):', '    pass', "CLASSES = {'Python.Feed': Feed}"].join('\n'),
    });
    await migrateSettings(store, 'USER', adapter);
    const service = settingsFolder({
      'settings.py': [
        'from iop import BusinessService',
        'class Poller(BusinessService):',
        '    @staticmethod',
        '    def get_adapter_type():',
        "        return 'Python.Feed'",
        "CLASSES = {'Python.Poller': Poller}",
      ].join('\n'),
    });
    expect((await migrateSettings(store, 'USER', service)).classes).toEqual(['Python.Poller']);
  });

  it('stores production-level settings of a dict production and of an IoP 4 Production object', async () => {
    const path = settingsFolder({
      'settings.py': [
        'from iop import Production',
        "PRODUCTIONS = [{'A.Dict': {'Setting': [{'@Target': 'Production', '@Name': 'ShutdownTimeout', '#text': 300},",
        "                                       {'@Name': 'AlertNotificationRecipients', '#text': 'ops@example.com'}]}},",
        "               Production('A.Dsl', update_timeout=30, alert_action_window=90)]",
        '',
      ].join('\n'),
    });
    await migrateSettings(store, 'USER', path);
    expect((await store.productions.get('USER', 'A.Dict'))?.definition.settings).toEqual([
      { name: 'ShutdownTimeout', value: '300' },
      { name: 'AlertNotificationRecipients', value: 'ops@example.com' },
    ]);
    expect((await store.productions.get('USER', 'A.Dsl'))?.definition.settings).toEqual([
      { name: 'UpdateTimeout', value: '30' },
      { name: 'AlertActionWindow', value: '90' },
    ]);
  });

  it('rejects a production-level setting with an item target or given twice', async () => {
    const hostTarget = settingsFolder({
      'settings.py': "PRODUCTIONS = [{'A.B': {'Setting': {'@Target': 'Host', '@Name': 'ShutdownTimeout', '#text': '1'}}}]\n",
    });
    expect((await failure(hostTarget)).message).toBe(
      `${hostTarget}: PRODUCTIONS[0] (A.B): production-level Setting 'ShutdownTimeout' has @Target 'Host'; use Production or leave it out`,
    );
    const twice = settingsFolder({
      'settings.py': "PRODUCTIONS = [{'A.B': {'Setting': [{'@Name': 'UpdateTimeout', '#text': '1'}, {'@Name': 'UpdateTimeout', '#text': '2'}]}}]\n",
    });
    expect((await failure(twice)).message).toBe(`${twice}: PRODUCTIONS[0] (A.B): production-level Setting 'UpdateTimeout' is given twice`);
  });

  it('rejects attribute text that is not a boolean', async () => {
    const path = settingsFolder({ 'settings.py': "PRODUCTIONS = [{'A.B': {'Item': [{'@Name': 'X', '@ClassName': 'Y', '@Enabled': 'maybe'}]}}]\n" });
    expect((await failure(path)).message).toBe(`${path}: PRODUCTIONS[0] (A.B) item X @Enabled: 'maybe' is not a boolean (use true/false or 1/0)`);
  });

  it('rejects a SCHEMAS entry that is not a message class', async () => {
    const path = settingsFolder({ 'settings.py': 'from dataclasses import dataclass\n\n@dataclass\nclass Loose:\n    x: int = None\n\nSCHEMAS = [Loose]\n' });
    expect((await failure(path)).message).toBe(`${path}: SCHEMAS[0] (settings.Loose): The class must be a subclass of _Message or _PydanticMessage`);
  });

  it('gives up on a file whose import never finishes', async () => {
    const path = settingsFolder({ 'settings.py': 'import time\ntime.sleep(60)\n' });
    const error = await migrateSettings(store, 'USER', path, { timeoutMs: 500 }).catch((e: unknown) => e);
    expect(isConveyorError(error, 'ERR_MIGRATION')).toBe(true);
    expect((error as Error).message).toBe(`${path}: loading the file did not finish within 500 ms (does it wait for something at import time?)`);
  });

  it('names the interpreter it cannot start', async () => {
    const error = await migrateSettings(store, 'USER', settingsPath, { interpreter: '/nonexistent/python3' }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(`${settingsPath}: cannot start the Python interpreter '/nonexistent/python3': spawn /nonexistent/python3 ENOENT`);
  });

  it('says when the settings file does not exist', async () => {
    const missing = join(workDir, 'nope', 'settings.py');
    expect((await failure(missing)).message).toBe(`${missing}: the settings file does not exist`);
  });
});
