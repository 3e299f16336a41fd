import { describe, expect, it } from 'vitest';
import { isConveyorError } from '../core/errors.ts';
import { emptyBody } from '../core/message.ts';
import { assertJsonObjectText, replyText, testRequestBody } from './test-message.ts';

describe('testRequestBody (the request of POST /test)', () => {
  it('is an empty Ens.Request when no class is named', () => {
    expect(testRequestBody(undefined, { a: 1 })).toBe(emptyBody);
    expect(testRequestBody('', 'x')).toBe(emptyBody);
  });

  it('carries a Python message class as JSON text, from an object or from JSON text', () => {
    expect(testRequestBody('msg.Order', { id: 1 })).toEqual({ classname: 'msg.Order', encoding: 'json', data: '{"id":1}' });
    expect(testRequestBody('msg.Order', '{"id": 1}')).toEqual({ classname: 'msg.Order', encoding: 'json', data: '{"id": 1}' });
    expect(testRequestBody('msg.Order', undefined)).toEqual({ classname: 'msg.Order', encoding: 'json', data: '{}' });
    expect(testRequestBody('msg.Order', null)).toEqual({ classname: 'msg.Order', encoding: 'json', data: '{}' });
  });

  it('carries a text that is not JSON as a JSON string', () => {
    expect(testRequestBody('msg.Text', 'hello')).toEqual({ classname: 'msg.Text', encoding: 'json', data: '"hello"' });
  });

  it('makes a plain text the StringValue of a string message, named as in IRIS or with iris.', () => {
    for (const classname of ['Ens.StringRequest', 'iris.Ens.StringRequest']) {
      expect(testRequestBody(classname, 'hi')).toEqual({ classname: 'Ens.StringRequest', encoding: 'native', data: '{"StringValue":"hi"}' });
    }
    expect(testRequestBody('Ens.StringResponse', { StringValue: 'x' })).toEqual({
      classname: 'Ens.StringResponse',
      encoding: 'native',
      data: '{"StringValue":"x"}',
    });
  });

  it('sends other native classes with their properties, or empty without any', () => {
    expect(testRequestBody('EnsLib.HL7.Message', { Name: 'ADT' })).toEqual({ classname: 'EnsLib.HL7.Message', encoding: 'native', data: '{"Name":"ADT"}' });
    expect(testRequestBody('iris.Ens.Request', {})).toEqual({ classname: 'Ens.Request', encoding: 'empty', data: '' });
    expect(testRequestBody('%Library.Persistent', undefined)).toEqual({ classname: '%Library.Persistent', encoding: 'empty', data: '' });
  });
});

describe('assertJsonObjectText', () => {
  it('accepts a JSON object', () => {
    expect(() => assertJsonObjectText('{"a": [1, 2]}')).not.toThrow();
  });

  it('refuses text that is not JSON, naming the parse error', () => {
    let error: unknown;
    try {
      assertJsonObjectText('{"a": ');
    } catch (e) {
      error = e;
    }
    expect(isConveyorError(error, 'ERR_INVALID_INPUT')).toBe(true);
    expect((error as Error).message).toMatch(/^The test body is not valid JSON: /);
  });

  it.each(['[1]', '"text"', '42', 'null'])('refuses %s, which is JSON but not an object', (text) => {
    expect(() => assertJsonObjectText(text)).toThrow('The test body of a Python message class must be a JSON object');
  });
});

describe('replyText (the reply of POST /test)', () => {
  it('is empty when the item answered nothing', () => {
    expect(replyText(null)).toEqual({ classname: '', body: '' });
  });

  it('is {} for an empty response, and the data otherwise', () => {
    expect(replyText({ classname: 'Ens.Response', encoding: 'empty', data: '' })).toEqual({ classname: 'Ens.Response', body: '{}' });
    expect(replyText({ classname: 'msg.Reply', encoding: 'json', data: '{"ok":true}' })).toEqual({ classname: 'msg.Reply', body: '{"ok":true}' });
  });
});
