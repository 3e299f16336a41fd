import { describe, expect, it } from 'vitest';
import { isConveyorError } from '../core/errors.ts';
import { encodeFrame, FrameDecoder, maxFrameBytes } from './frames.ts';

describe('frames', () => {
  it('encodes a 4-byte big-endian length followed by UTF-8 JSON', () => {
    const frame = encodeFrame({ t: 'log', text: 'é' });
    const json = '{"t":"log","text":"é"}';
    expect(frame.readUInt32BE(0)).toBe(Buffer.byteLength(json));
    expect(frame.subarray(4).toString('utf8')).toBe(json);
  });

  it('decodes frames split at any byte and several frames in one chunk', () => {
    const values = [{ a: 1 }, { b: 'こんにちは' }, { c: 'x'.repeat(70_000) }];
    const stream = Buffer.concat(values.map(encodeFrame));
    for (const step of [1, 3, 7, 4096, stream.length]) {
      const decoder = new FrameDecoder();
      const out: unknown[] = [];
      for (let at = 0; at < stream.length; at += step) out.push(...decoder.push(stream.subarray(at, at + step)));
      expect(out).toEqual(values);
    }
  });

  it('refuses a length over the limit as a corrupt stream', () => {
    const header = Buffer.alloc(4);
    header.writeUInt32BE(maxFrameBytes + 1, 0);
    let caught: unknown;
    try {
      new FrameDecoder().push(header);
    } catch (error) {
      caught = error;
    }
    expect(isConveyorError(caught, 'ERR_BRIDGE')).toBe(true);
    expect((caught as Error).message).toContain('over the 268435456-byte limit');
  });
});
