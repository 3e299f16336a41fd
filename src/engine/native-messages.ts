/** The few native (non-Python) message classes the engine itself creates or reads. */
import type { MessageBody } from '../core/message.ts';

export function stringRequest(text: string): MessageBody {
  return { classname: 'Ens.StringRequest', encoding: 'native', data: JSON.stringify({ StringValue: text }) };
}

/** The text a body carries: StringValue of native string messages, else the raw data. */
export function bodyText(body: MessageBody): string {
  if (body.encoding === 'native' && body.data !== '') {
    const parsed = JSON.parse(body.data) as { StringValue?: unknown };
    if (typeof parsed.StringValue === 'string') return parsed.StringValue;
  }
  return body.data;
}
