import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/api/support/harness.ts';
import { ConveyorError } from '../core/errors.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ requestTimeoutMs: 1000 });
});
afterAll(async () => h.close());

const slowly = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), 2500));

describe('request timeout', () => {
  it('a spec route that takes too long answers 500 {error}; a beyond-spec route 504', async () => {
    // Sign in first (scrypt counts against the timeout too), and give the namespace a default.
    await h.app.inject({ method: 'PUT', url: '/api/iop/default', headers: h.auth('admin'), payload: { production: 'Demo.Production' } });
    await h.app.inject({ url: '/api/iop/version', headers: h.auth('viewer') });
    const { status, queues } = h.engine;
    h.engine.status = () => slowly({ production: '', status: 'stopped' as const });
    h.engine.queues = () => slowly([]);
    try {
      const [spec, beyond] = await Promise.all([
        h.app.inject({ url: '/api/iop/status', headers: h.auth('viewer') }),
        h.app.inject({ url: '/api/iop/queues', headers: h.auth('viewer') }),
      ]);
      expect(spec.statusCode).toBe(500);
      expect(spec.json()).toEqual({
        error: 'ERROR #TIMEOUT: The server did not finish the request within 1000 ms; the operation may still complete, check its status',
        code: 'ERR_TIMEOUT',
      });
      expect(beyond.statusCode).toBe(504);
    } finally {
      Object.assign(h.engine, { status, queues });
    }
  });
});

describe('error texts', () => {
  /** Makes GET /status fail with `failure`, and returns the reply. */
  async function statusFailingWith(failure: unknown) {
    const original = h.engine.status.bind(h.engine);
    h.engine.status = async () => {
      throw failure;
    };
    try {
      return await h.app.inject({ url: '/api/iop/status', headers: h.auth('viewer') });
    } finally {
      h.engine.status = original;
    }
  }

  it('start with ERROR and the stable code, keep the code in the body and the hint in parentheses', async () => {
    const reply = await statusFailingWith(
      new ConveyorError('ERR_ITEM_NOT_FOUND', "No item 'X' in production 'Y'", { hint: 'list the items with GET /export' }),
    );
    expect(reply.statusCode).toBe(500);
    expect(reply.json()).toEqual({
      error: "ERROR #ITEM_NOT_FOUND: No item 'X' in production 'Y' (list the items with GET /export)",
      code: 'ERR_ITEM_NOT_FOUND',
    });
  });

  it('never name a folder of the server: a name too long for the file system', async () => {
    const tooLong = join(h.home, 'packages', 'x'.repeat(300));
    const failure = await mkdir(tooLong, { recursive: true }).then(
      () => null,
      (error: unknown) => error,
    );
    expect((failure as NodeJS.ErrnoException).code).toBe('ENAMETOOLONG');
    const reply = await statusFailingWith(failure);
    expect(reply.json()).toEqual({
      error: "ERROR #INVALID_INPUT: A name is too long for the server's file system: ENAMETOOLONG: name too long (mkdir)",
      code: 'ERR_INVALID_INPUT',
    });
    expect(reply.body).not.toContain(h.home);
  });

  it('never name a folder of the server: a file that exists already, inside a ConveyorError', async () => {
    const existing = join(h.home, 'taken');
    await writeFile(existing, 'x');
    const failure = await writeFile(existing, 'y', { flag: 'wx' }).then(
      () => null,
      (error: unknown) => error,
    );
    const unexpected = await statusFailingWith(failure);
    expect(unexpected.json()).toEqual({ error: 'ERROR #INTERNAL: Internal error: EEXIST: file already exists (open)', code: 'ERR_INTERNAL' });
    const wrapped = await statusFailingWith(new ConveyorError('ERR_STORE', `Cannot write: ${(failure as Error).message}`));
    expect(wrapped.json().error).toBe("ERROR #STORE: Cannot write: EEXIST: file already exists, open '<tmp>/" + existing.split('/').slice(-2).join('/') + "'");
    expect(wrapped.body).not.toContain(h.home);
  });

  it('never carry a Python traceback: its frames are left out, the exception stays', async () => {
    const traceback = [
      'Cannot start Echo (Python.EchoOperation): on_init: ValueError: bad setting',
      'Traceback (most recent call last):',
      `  File "${join(h.home, 'packages', 'USER', 'echo', 'echo.py')}", line 12, in on_init`,
      '    raise ValueError("bad setting")',
      'ValueError: bad setting',
    ].join('\n');
    const reply = await statusFailingWith(new ConveyorError('ERR_COMPONENT_FAILED', traceback, { hint: 'fix the component and restart it' }));
    expect(reply.json().error).toBe(
      "ERROR #COMPONENT_FAILED: Cannot start Echo (Python.EchoOperation): on_init: ValueError: bad setting (traceback left out; it is in the server's log) (fix the component and restart it)",
    );
    const chained = [
      'Migration failed',
      'Traceback (most recent call last):',
      '  File "x.py", line 1',
      'KeyError: 1',
      '',
      'During handling of the above exception, another exception occurred:',
      '',
      'Traceback (most recent call last):',
      '  File "y.py", line 2',
      'ValueError: 2',
    ].join('\n');
    expect((await statusFailingWith(new ConveyorError('ERR_MIGRATION', chained))).json().error).toBe(
      "ERROR #MIGRATION: Migration failed (traceback left out; it is in the server's log)\nKeyError: 1\nValueError: 2",
    );
  });
});
