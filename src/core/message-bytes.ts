/**
 * Message bodies that keep the UTF-8 bytes their `data` arrived as (from a Python worker's frame),
 * so the engine can store and forward a body it never reads without turning it into a string and
 * back: decoding, measuring and re-encoding a 1 MB body cost milliseconds per hop
 * (docs/benchmarks.md, issue 16). `data` stays a plain string to every reader: it is decoded on
 * first read. Writing `data` drops the bytes, so they always spell the body's current text.
 */
import { isAscii } from 'node:buffer';

const carried = new WeakMap<object, Buffer>();

/** Makes `body.data` the text of `bytes` (UTF-8), decoded when first read. */
export function carryBodyBytes(body: object, bytes: Buffer): void {
  carried.set(body, bytes);
  let text: string | undefined;
  Object.defineProperty(body, 'data', {
    enumerable: true,
    configurable: true,
    get: () => (text ??= utf8Text(bytes)),
    set: (value: unknown) => {
      carried.delete(body);
      Object.defineProperty(body, 'data', { value, enumerable: true, configurable: true, writable: true });
    },
  });
}

/** The UTF-8 bytes of `body.data` when the body still carries those it arrived with. */
export function bodyBytes(body: object): Buffer | undefined {
  return carried.get(body);
}

/**
 * UTF-8 bytes as a string. Node 20's UTF-8 decoder does about 200 MB/s; an ASCII check and the
 * ASCII decoder do the common case (JSON bodies are mostly ASCII) several times faster.
 */
export function utf8Text(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('ascii') : bytes.toString('utf8');
}
