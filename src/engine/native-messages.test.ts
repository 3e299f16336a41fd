import { describe, expect, it } from 'vitest';
import { bodyText, stringRequest } from './native-messages.ts';

describe('native string messages', () => {
  it('carries a text as the StringValue of an Ens.StringRequest and reads it back', () => {
    const body = stringRequest('hello "world"\nline two');
    expect(body).toMatchObject({ classname: 'Ens.StringRequest', encoding: 'native' });
    expect(JSON.parse(body.data)).toEqual({ StringValue: 'hello "world"\nline two' });
    expect(bodyText(body)).toBe('hello "world"\nline two');
  });

  it('reads an empty StringValue as an empty text', () => {
    expect(bodyText(stringRequest(''))).toBe('');
  });

  it('gives the raw data of a Python (json) body, even when it has a StringValue field', () => {
    expect(bodyText({ classname: 'msg.Text', encoding: 'json', data: '{"StringValue":"x"}' })).toBe('{"StringValue":"x"}');
  });

  it('gives the raw data of a native body without a string StringValue', () => {
    expect(bodyText({ classname: 'Ens.Request', encoding: 'native', data: '{"Other":1}' })).toBe('{"Other":1}');
    expect(bodyText({ classname: 'Ens.StringRequest', encoding: 'native', data: '{"StringValue":42}' })).toBe('{"StringValue":42}');
    expect(bodyText({ classname: 'Ens.Request', encoding: 'empty', data: '' })).toBe('');
    expect(bodyText({ classname: 'Ens.StringRequest', encoding: 'native', data: '' })).toBe('');
  });
});
