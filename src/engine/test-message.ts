/** Builds the request of a test call (spec POST /test) and renders the reply as text. */
import type { Reply } from '../core/component.ts';
import { ConveyorError } from '../core/errors.ts';
import { emptyBody, type MessageBody } from '../core/message.ts';

/** Classes that are not Python messages: IRIS-native classes, named as in IRIS or with `iris.`. */
function nativeName(classname: string): string | null {
  const bare = classname.startsWith('iris.') ? classname.slice(5) : classname;
  return /^(Ens|EnsLib|%)/.test(bare) ? bare : null;
}

export function testRequestBody(classname: string | undefined, body: unknown): MessageBody {
  if (classname === undefined || classname === '') return emptyBody;
  const text = bodyAsJsonText(body);
  const native = nativeName(classname);
  if (native !== null) {
    // A plain string for a string message is its StringValue, as IoP's Class._New(body) does.
    if (native === 'Ens.StringRequest' || native === 'Ens.StringResponse') {
      const parsed = JSON.parse(text) as unknown;
      const properties = typeof parsed === 'string' ? { StringValue: parsed } : parsed;
      return { classname: native, encoding: 'native', data: JSON.stringify(properties) };
    }
    return { classname: native, encoding: text === '{}' ? 'empty' : 'native', data: text === '{}' ? '' : text };
  }
  return { classname, encoding: 'json', data: text };
}

function bodyAsJsonText(body: unknown): string {
  if (body === undefined || body === null || body === '') return '{}';
  if (typeof body !== 'string') return JSON.stringify(body);
  try {
    JSON.parse(body);
    return body;
  } catch {
    // A bare string is a valid body for string messages: carry it as a JSON string.
    return JSON.stringify(body);
  }
}

export function assertJsonObjectText(text: string): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConveyorError('ERR_INVALID_INPUT', `The test body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConveyorError('ERR_INVALID_INPUT', 'The test body of a Python message class must be a JSON object');
  }
}

export function replyText(reply: Reply): { classname: string; body: string } {
  if (reply === null) return { classname: '', body: '' };
  if (reply.encoding === 'empty') return { classname: reply.classname, body: '{}' };
  return { classname: reply.classname, body: reply.data };
}
