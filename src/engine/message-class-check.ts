/**
 * Before a test call is sent: can the target's Python build its message? A short-lived python3
 * decodes the body exactly as the worker would (the SDK's deserialize, with the item's classpaths),
 * so an unknown class or a body the class refuses is the caller's error, answered at once, and not
 * a failure logged against the target item. Bounded: the check ends its process past its timeout.
 */
import { spawn } from 'node:child_process';
import { ConveyorError } from '../core/errors.ts';
import type { MessageBody } from '../core/message.ts';
import { pythonSdkDir } from '../bridge/index.ts';

/** Longest check (the import of the message's module runs user code). */
export const messageCheckTimeoutMs = 30_000;

// User code printing at import must not corrupt the verdict: stdout is the verdict's alone.
const checkScript = `
import json, sys
request = json.loads(sys.stdin.read())
verdict_out, sys.stdout = sys.stdout, sys.stderr
sys.path[0:0] = [p for p in request['classpaths'] if p]
try:
    from iop._serialization import deserialize, SerializationError
    try:
        deserialize(request['body'])
        verdict = {'ok': True}
    except SerializationError as error:
        verdict = {'ok': False, 'unknown': str(error).startswith('Failed to load class'), 'error': str(error)}
    except BaseException as error:
        verdict = {'ok': False, 'unknown': False, 'error': f'{type(error).__name__}: {error}'}
except BaseException as error:
    verdict = {'ok': False, 'unknown': False, 'error': f'{type(error).__name__}: {error}'}
verdict_out.write(json.dumps(verdict))
verdict_out.flush()
`;

interface Verdict {
  ok: boolean;
  unknown?: boolean;
  error?: string;
}

/** Rejects with ERR_CLASS_NOT_FOUND or ERR_INVALID_INPUT when the body cannot become its message. */
export async function checkMessageClass(body: MessageBody, classpaths: string[], interpreter: string, timeoutMs = messageCheckTimeoutMs): Promise<void> {
  if (body.encoding !== 'json') return;
  const verdict = await runCheck({ body, classpaths }, interpreter, timeoutMs);
  if (verdict.ok) return;
  if (verdict.unknown) {
    throw new ConveyorError('ERR_CLASS_NOT_FOUND', `Unknown message class ${body.classname}: ${verdict.error ?? ''}`, {
      hint: 'Give the message class as module.Class, importable from the classpaths of the target item',
    });
  }
  throw new ConveyorError('ERR_INVALID_INPUT', `The test body cannot be read as a ${body.classname}: ${verdict.error ?? ''}`);
}

function runCheck(request: { body: MessageBody; classpaths: string[] }, interpreter: string, timeoutMs: number): Promise<Verdict> {
  const existing = process.env['PYTHONPATH'];
  const child = spawn(interpreter, ['-c', checkScript], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, PYTHONPATH: existing ? `${pythonSdkDir}:${existing}` : pythonSdkDir, PYTHONIOENCODING: 'utf-8' },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString('utf8')).slice(-2000)));
  child.stdin.on('error', () => undefined);
  child.stdin.end(JSON.stringify(request));
  return new Promise<Verdict>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new ConveyorError('ERR_TIMEOUT', `Checking the message class ${request.body.classname} took longer than ${timeoutMs} ms (its module's import did not finish)`));
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new ConveyorError('ERR_BRIDGE', `Cannot run the Python interpreter '${interpreter}' to check the message class: ${error.message}`));
    });
    child.once('close', () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(out) as Verdict);
      } catch {
        reject(new ConveyorError('ERR_BRIDGE', `Checking the message class ${request.body.classname} failed: ${err.trim().split('\n').slice(-3).join(' ') || 'no verdict'}`));
      }
    });
  });
}
