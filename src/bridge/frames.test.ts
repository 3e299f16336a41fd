import { describe, expect, it } from 'vitest';
import { isConveyorError } from '../core/errors.ts';
import { bodyBytes } from '../core/message-bytes.ts';
import { carriedMinChars, encodeFrame, FrameDecoder, maxFrameBytes } from './frames.ts';

const encode = (value: unknown): Buffer => Buffer.concat(encodeFrame(value));

function decodeAll(stream: Buffer, step: number): unknown[] {
  const decoder = new FrameDecoder();
  const out: unknown[] = [];
  for (let at = 0; at < stream.length; at += step) out.push(...decoder.push(stream.subarray(at, at + step)));
  return out;
}

function corruption(stream: Buffer): unknown {
  try {
    new FrameDecoder().push(stream);
  } catch (error) {
    return error;
  }
  return null;
}

describe('frames', () => {
  it('encodes a frame without long strings as its length, its head length and the UTF-8 JSON', () => {
    const frame = encode({ t: 'log', text: 'é' });
    const json = '{"t":"log","text":"é"}';
    expect(frame.readUInt32BE(0)).toBe(4 + Buffer.byteLength(json));
    expect(frame.readUInt32BE(4)).toBe(Buffer.byteLength(json));
    expect(frame.subarray(8).toString('utf8')).toBe(json);
  });

  it('carries long strings after the head as raw UTF-8, naming their places, and leaves the value unchanged', () => {
    const data = JSON.stringify({ text: 'ü'.repeat(carriedMinChars) });
    const body = { classname: 'msg.Big', encoding: 'json', data };
    const value = { t: 'invoke', id: 1, args: { request: body, messageId: 7 } };
    const frame = encode(value);
    const headBytes = frame.readUInt32BE(4);
    const head = JSON.parse(frame.toString('utf8', 8, 8 + headBytes)) as unknown;
    const bytes = Buffer.byteLength(data);
    expect(head).toEqual([{ ...value, args: { request: { ...body, data: 0 }, messageId: 7 } }, [[bytes, 'args', 'request', 'data']]]);
    expect(frame.toString('utf8', 8 + headBytes)).toBe(data);
    expect(frame.readUInt32BE(0)).toBe(frame.length - 4);
    expect(value.args.request).toBe(body);
    expect(body.data).toBe(data);
  });

  it('decodes frames split at any byte and several frames in one chunk, long strings in arrays and objects put back', () => {
    const long = 'x'.repeat(70_000);
    const values = [
      { a: 1 },
      { b: 'こんにちは' },
      { c: long },
      { t: 'op', calls: [{ body: { data: `${'é'.repeat(2000)}"\\` } }, { body: { data: 'short' } }], value: ['y'.repeat(carriedMinChars), long] },
      { deep: { a: { b: { c: { d: long } } } } },
    ];
    const stream = Buffer.concat(values.map(encode));
    for (const step of [1, 3, 7, 4096, stream.length]) expect(decodeAll(stream, step)).toEqual(values);
  });

  it('keeps a decoded body as its bytes, sends them on uncopied, and decodes its data only when read', () => {
    const data = JSON.stringify({ text: `${'é'.repeat(carriedMinChars)}"` });
    const [decoded] = new FrameDecoder().push(encode({ t: 'op', body: { classname: 'msg.Big', encoding: 'json', data } })) as Array<{ body: { data: string } }>;
    const body = decoded!.body;
    const bytes = bodyBytes(body);
    expect(bytes?.toString('utf8')).toBe(data);
    const parts = encodeFrame({ t: 'invoke', args: { request: body } });
    expect(parts).toContain(bytes);
    expect(new FrameDecoder().push(Buffer.concat(parts))).toEqual([{ t: 'invoke', args: { request: { classname: 'msg.Big', encoding: 'json', data } } }]);
    expect(body).toEqual({ classname: 'msg.Big', encoding: 'json', data });
    body.data = 'changed';
    expect(bodyBytes(body)).toBeUndefined();
    expect(JSON.parse(Buffer.concat(encodeFrame({ body })).toString('utf8', 8))).toEqual({ body: { classname: 'msg.Big', encoding: 'json', data: 'changed' } });
  });

  it('puts an echoed string back as the very buffer the engine sent, as text outside a body, and refuses an echo it does not hold', () => {
    const data = JSON.stringify({ text: 'x'.repeat(carriedMinChars) });
    const sent = encodeFrame({ t: 'invoke', id: 5, args: { request: { classname: 'msg.Big', encoding: 'json', data }, note: 'n'.repeat(carriedMinChars) } });
    const held = new Map([[5, sent.slice(1)]]);
    const decoder = new FrameDecoder((requestId, slotIndex) => held.get(requestId)?.[slotIndex]);
    const head = JSON.stringify([
      { t: 'op', body: { classname: 'msg.Big', encoding: 'json', data: 0 }, description: 0 },
      [],
      [
        [5, 0, 'body', 'data'],
        [5, 1, 'description'],
      ],
    ]);
    const frame = Buffer.alloc(8 + Buffer.byteLength(head));
    frame.writeUInt32BE(frame.length - 4, 0);
    frame.writeUInt32BE(Buffer.byteLength(head), 4);
    frame.write(head, 8);
    const [op] = decoder.push(frame) as Array<{ body: { data: string }; description: string }>;
    expect(bodyBytes(op!.body)).toBe(sent[1]);
    expect(op!.body.data).toBe(data);
    expect(op!.description).toBe('n'.repeat(carriedMinChars));
    held.clear();
    const caught = (() => {
      try {
        decoder.push(frame);
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(isConveyorError(caught, 'ERR_BRIDGE')).toBe(true);
    expect((caught as Error).message).toContain('echoed string 0 of request 5, which the engine does not hold');
  });

  it('refuses a length over the limit, a head overrunning its frame and strings not filling it as a corrupt stream', () => {
    const tooLong = Buffer.alloc(4);
    tooLong.writeUInt32BE(maxFrameBytes + 1, 0);
    const overrun = Buffer.alloc(10);
    overrun.writeUInt32BE(6, 0);
    overrun.writeUInt32BE(3, 4);
    const head = JSON.stringify([{ data: 0 }, [[5, 'data']]]);
    const short = Buffer.alloc(8 + head.length + 3);
    short.writeUInt32BE(short.length - 4, 0);
    short.writeUInt32BE(head.length, 4);
    short.write(head, 8);
    for (const [stream, text] of [
      [tooLong, 'outside 4 to 268435456'],
      [overrun, 'head overruns it'],
      [short, 'do not fill it'],
    ] as const) {
      const caught = corruption(stream);
      expect(isConveyorError(caught, 'ERR_BRIDGE')).toBe(true);
      expect((caught as Error).message).toContain(text);
    }
  });
});
