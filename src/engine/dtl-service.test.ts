import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isConveyorError } from '../core/errors.ts';
import { newItem, newProduction } from '../core/production.ts';
import type { NamespaceOperations } from './namespace-operations.ts';
import { freshEngineForEachTest, type FreshEngine } from '../../test/support/engine-fixture.ts';

const greeting = `<transform sourceClass='Ens.StringRequest' targetClass='IOP.Message' targetDocType='demo.Greeting' create='new' language='objectscript'>
<assign value='source.StringValue' property='target.{text}' action='set'/>
<assign value='..Lookup("Lang",source.StringValue,"unknown")' property='target.{language}' action='set'/>
</transform>`;

const schema = {
  title: 'Greeting',
  type: 'object',
  properties: { text: { type: 'string', default: null }, language: { type: 'string', default: null }, tags: { type: 'array', items: { type: 'string' } } },
};

describe('DTL in the engine', () => {
  let dir: FreshEngine['dir'];
  let user: NamespaceOperations;
  freshEngineForEachTest({ drainTimeoutMs: 1000, graceMs: 500 }, (fresh) => ({ dir, user } = fresh));

  it('stores versions of a valid transform and refuses one with positioned errors', async () => {
    expect((await user.dtl.putTransform('Demo.Greet', greeting)).version).toBe(1);
    expect((await user.dtl.putTransform('Demo.Greet', greeting)).version).toBe(2);
    expect((await user.dtl.transformHistory('Demo.Greet')).map((t) => t.version)).toEqual([1, 2]);
    const [summary] = await user.dtl.listTransforms();
    expect(summary).toMatchObject({
      name: 'Demo.Greet',
      sourceClass: 'Ens.StringRequest',
      targetClass: 'IOP.Message',
      targetDocType: 'demo.Greeting',
      version: 2,
    });

    const broken = `<transform sourceClass='A' targetClass='B'>\n  <asign value='1' property='target.x'/>\n</transform>`;
    const error = await user.dtl.putTransform('Demo.Broken', broken).catch((e: unknown) => e);
    expect(isConveyorError(error, 'ERR_DTL')).toBe(true);
    expect((error as Error).message).toMatch(/Demo\.Broken:2:\d+: .*asign/);
    await expect(user.dtl.getTransform('Demo.Broken')).rejects.toThrow(/does not exist/);
    const diagnostics = await user.dtl.compileTransform('<transform sourceClass="A"', 'half');
    expect(diagnostics[0]).toMatchObject({ document: 'half', severity: 'error' });
  });

  it('imports a JSON schema from a file under a package and a name, and refuses bad ones', async () => {
    const file = join(dir.path, 'greeting.json');
    await writeFile(file, JSON.stringify(schema));
    await user.dtl.importSchema({ path: file, package: 'demo', name: 'demo.Greeting' });
    expect(await user.dtl.listSchemas()).toEqual([{ name: 'demo.Greeting', category: 'demo', updatedAt: expect.any(Number) }]);
    const tree = await user.dtl.schemaTree('demo.Greeting');
    expect(tree.map((n) => n.name)).toEqual(['text', 'language', 'tags()']);
    await expect(user.dtl.importSchema({ path: join(dir.path, 'nope.json'), package: 'p', name: 'n' })).rejects.toThrow(
      /Cannot read the schema file .*nope\.json: ENOENT/,
    );
    await writeFile(join(dir.path, 'bad.json'), '{"type": ');
    await expect(user.dtl.importSchema({ path: join(dir.path, 'bad.json'), package: 'p', name: 'n' })).rejects.toThrow(
      /is not valid JSON \(at line 1, column 10\)$/,
    );
    // A file that is not JSON: where it goes wrong, never its text (the parser's message quotes it).
    await writeFile(join(dir.path, 'passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
    const notJson = await user.dtl.importSchema({ path: join(dir.path, 'passwd'), package: 'p', name: 'n' }).catch((e: unknown) => e);
    expect((notJson as Error).message).toMatch(/passwd is not valid JSON \(at line 1, column 1\)$/);
    expect((notJson as Error).message).not.toMatch(/root:x|'r'/);
    await expect(user.dtl.importSchema({ schema: [1], package: 'p', name: 'n' })).rejects.toThrow(/must be a JSON object/);
    // Paths are now checked against the target schema.
    const warnings = await user.dtl.compileTransform(greeting.replace('target.{text}', 'target.{txet}'));
    expect(warnings.some((d) => /txet/.test(d.message))).toBe(true);
  });

  it('runs a transform with lookup tables through the built-in transform process', async () => {
    await user.dtl.putLookup('Lang', { hello: 'en', bonjour: 'fr' });
    await user.dtl.putTransform('Demo.Greet', greeting);
    const run = await user.dtl.runTransform({ name: 'Demo.Greet' }, { json: { StringValue: 'bonjour' } });
    expect(run).toMatchObject({ status: 'ok', targetClass: 'demo.Greeting', target: { text: 'bonjour', language: 'fr' } });

    await user.putDefinition(
      newProduction('Demo.Dtl', [newItem('Map', 'Conveyor.Process.Transform', { settings: [{ target: 'Host', name: 'Transform', value: 'Demo.Greet' }] })]),
    );
    await user.start('Demo.Dtl');
    const reply = await user.test({ target: 'Map', classname: 'Ens.StringRequest', body: 'hello' });
    expect(reply.classname).toBe('demo.Greeting');
    expect(JSON.parse(reply.body)).toEqual({ text: 'hello', language: 'en' });
    // A new lookup value is seen by the next run.
    await user.dtl.putLookup('Lang', { hello: 'english' });
    expect(JSON.parse((await user.test({ target: 'Map', classname: 'Ens.StringRequest', body: 'hello', restart: false })).body).language).toBe('english');
  });
});
