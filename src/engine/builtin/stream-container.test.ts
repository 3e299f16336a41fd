import { describe, expect, it } from 'vitest';
import { isConveyorError } from '../../core/errors.ts';
import { stringRequest } from '../native-messages.ts';
import { streamContainer, streamContent } from './stream-container.ts';

describe('Ens.StreamContainer bodies', () => {
  it('carry any bytes and the original file name unchanged', () => {
    const bytes = Buffer.from([0, 255, 10, 13, 0x80, 0x41]);
    const body = streamContainer('scan.bin', bytes);
    expect(body).toMatchObject({ classname: 'Ens.StreamContainer', encoding: 'native' });
    expect(JSON.parse(body.data)).toMatchObject({ OriginalFilename: 'scan.bin', Size: 6 });
    const read = streamContent(body);
    expect(read.originalFilename).toBe('scan.bin');
    expect(read.content.equals(bytes)).toBe(true);
  });

  it('read a string message as its text, in the charset asked for', () => {
    expect(streamContent(stringRequest('héllo')).content.toString('utf8')).toBe('héllo');
    expect([...streamContent(stringRequest('é'), 'latin1').content]).toEqual([0xe9]);
  });

  it('read any other body as its stored data', () => {
    expect(streamContent({ classname: 'msg.Order', encoding: 'json', data: '{"id":1}' }).content.toString()).toBe('{"id":1}');
    expect(streamContent({ classname: 'Ens.Request', encoding: 'empty', data: '' }).content.length).toBe(0);
  });

  it('refuse a stream container without its stream', () => {
    let caught: unknown = null;
    try {
      streamContent({ classname: 'Ens.StreamContainer', encoding: 'native', data: '{"OriginalFilename":"a"}' });
    } catch (error) {
      caught = error;
    }
    expect(isConveyorError(caught, 'ERR_INVALID_INPUT')).toBe(true);
  });
});
