/**
 * Length-prefixed frames on the dedicated pipes between the engine and a Python worker (never on
 * stdout/stderr):
 *
 *   u32 BE length of the rest | u32 BE head length | head (UTF-8 JSON) | strings (UTF-8, back to back)
 *
 * Long strings (a message body's `data`, above all) travel after the head as raw UTF-8 instead of
 * escaped inside the JSON: a 1 MB body that is itself JSON was escaped into the frame, then parsed
 * out of it, on every crossing, which cost more CPU than everything else a round trip does. The
 * head is then `[frame, slots]`, each slot `[byteLength, ...path]` naming where its string goes
 * (the frame holds 0 there); without carried strings it is the frame itself. The decoder needs no
 * knowledge of frame shapes: it puts each string back where the path says. A carried string that
 * is a message body's `data` stays bytes (core/message-bytes.ts): a body the engine only stores
 * and forwards is never decoded, and goes out again as the bytes it came in as.
 *
 * Echoes: a worker handing back a long string the engine sent it in a request (a component passing
 * its request on unchanged, or returning it) names it instead of sending it: the head is then
 * `[frame, slots, echoes]`, each echo `[requestId, slotIndex, ...path]`, the string being the
 * `slotIndex`-th carried string of the engine's request frame `requestId`. The engine holds those
 * until it has read that request's answer (python-worker.ts), so a 1 MB body passed through a
 * process crosses its pipe once instead of twice, and the engine puts back the very buffer it sent.
 * docs/python-bridge.md.
 */
import { ConveyorError } from '../core/errors.ts';
import { bodyBytes, carryBodyBytes, utf8Text } from '../core/message-bytes.ts';

/** Large enough for bodies of tens of megabytes, small enough to catch a garbled length. */
export const maxFrameBytes = 256 * 1024 * 1024;

/** Strings at least this long are carried after the head (shorter ones cost less escaped in place). */
export const carriedMinChars = 1024;
/** Bodies sit at most four levels down (`args.request.data`, `calls[i].body.data`); deeper is left inline. */
const carriedMaxDepth = 4;

type Path = Array<string | number>;
type Slot = [number, ...Path];
/** `[requestId, slotIndex, ...path]`: a string the engine sent, handed back by name. */
type Echo = [number, number, ...Path];

interface Carried {
  slots: Slot[];
  parts: Array<string | Buffer>;
  /** UTF-8 bytes of the string parts, which are encoded into the frame's own buffer. */
  textBytes: number;
}

/**
 * The frame as buffers to write in order (with `cork`, one `writev`): the head and the carried
 * strings in one buffer, carried body bytes as they are (not copied). The buffers after the first
 * are the carried strings, in the order of their slots (what an echo's `slotIndex` counts).
 */
export function encodeFrame(value: unknown): Buffer[] {
  const carried: Carried = { slots: [], parts: [], textBytes: 0 };
  const frame = lift(value, [], carried);
  const head = carried.slots.length === 0 ? JSON.stringify(frame) : JSON.stringify([frame, carried.slots]);
  const headBytes = Buffer.byteLength(head, 'utf8');
  const own = Buffer.allocUnsafe(8 + headBytes + carried.textBytes);
  own.writeUInt32BE(4 + headBytes + carried.slots.reduce((sum, slot) => sum + slot[0], 0), 0);
  own.writeUInt32BE(headBytes, 4);
  let at = 8 + own.write(head, 8, 'utf8');
  const out: Buffer[] = [own.subarray(0, at)];
  for (const part of carried.parts) {
    if (typeof part === 'string') {
      const start = at;
      at += own.write(part, at, 'utf8');
      out.push(own.subarray(start, at));
    } else {
      out.push(part);
    }
  }
  return out;
}

/**
 * `value` with its long strings replaced by 0 and recorded in `carried`; objects on the way to a
 * replaced string are copied, never changed (they are the engine's messages). `path` is where
 * `value` sits, a stack shared by the whole walk (small frames allocate nothing).
 */
function lift(value: unknown, path: Path, carried: Carried): unknown {
  if (typeof value === 'string') {
    if (value.length < carriedMinChars || path.length === 0) return value;
    const bytes = Buffer.byteLength(value, 'utf8');
    carried.slots.push([bytes, ...path]);
    carried.parts.push(value);
    carried.textBytes += bytes;
    return 0;
  }
  if (path.length === carriedMaxDepth || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      path.push(i);
      const lifted = lift(item, path, carried);
      path.pop();
      if (lifted !== item) (copy ??= [...value])[i] = lifted;
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  const bytes = bodyBytes(record);
  if (bytes !== undefined) return liftBody(record, bytes, path, carried);
  let copy: Record<string, unknown> | null = null;
  for (const key in record) {
    const item = record[key];
    path.push(key);
    const lifted = lift(item, path, carried);
    path.pop();
    if (lifted !== item) (copy ??= { ...record })[key] = lifted;
  }
  return copy ?? value;
}

/** A body still carrying its bytes: they are sent as they are, and its `data` is never read. */
function liftBody(body: Record<string, unknown>, bytes: Buffer, path: Path, carried: Carried): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key in body) copy[key] = key === 'data' ? 0 : body[key];
  carried.slots.push([bytes.length, ...path, 'data']);
  carried.parts.push(bytes);
  return copy;
}

/** The carried string `slotIndex` of the engine's request frame `requestId`, while the engine still holds it. */
export type EchoSource = (requestId: number, slotIndex: number) => Buffer | undefined;

/** Collects chunks and yields whole frames; chunks are only concatenated once a frame is complete. */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly echoed: EchoSource = () => undefined) {}

  push(chunk: Buffer): unknown[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: unknown[] = [];
    for (;;) {
      if (this.buffered < 4) break;
      const length = this.peekLength();
      if (length > maxFrameBytes || length < 4) {
        throw new ConveyorError('ERR_BRIDGE', `The Python worker sent a frame of ${length} bytes, outside 4 to ${maxFrameBytes}: the stream is corrupt`);
      }
      if (this.buffered < 4 + length) break;
      const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
      frames.push(decodeFrame(all.subarray(4, 4 + length), this.echoed));
      const rest = all.subarray(4 + length);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.buffered = rest.length;
    }
    return frames;
  }

  private peekLength(): number {
    const first = this.chunks[0]!;
    if (first.length >= 4) return first.readUInt32BE(0);
    const head = Buffer.alloc(4);
    let filled = 0;
    for (const chunk of this.chunks) {
      filled += chunk.copy(head, filled, 0, Math.min(chunk.length, 4 - filled));
      if (filled === 4) break;
    }
    return head.readUInt32BE(0);
  }
}

/** One frame without its length: the head, then the carried and echoed strings put back in place. */
function decodeFrame(body: Buffer, echoed: EchoSource): unknown {
  const headBytes = body.readUInt32BE(0);
  if (headBytes > body.length - 4) throw new ConveyorError('ERR_BRIDGE', `The Python worker sent a frame whose head overruns it: the stream is corrupt`);
  const head: unknown = JSON.parse(utf8Text(body.subarray(4, 4 + headBytes)));
  if (!Array.isArray(head)) {
    if (headBytes !== body.length - 4)
      throw new ConveyorError('ERR_BRIDGE', `The Python worker sent a frame whose strings do not fill it: the stream is corrupt`);
    return head;
  }
  const [frame, slots, echoes = []] = head as [unknown, Slot[], Echo[] | undefined];
  // A small body is copied out, so that it does not hold on to a socket read full of other frames
  // while it waits in a queue.
  const keep = (part: Buffer): Buffer => (part.length * 2 < body.buffer.byteLength ? Buffer.from(part) : part);
  let at = 4 + headBytes;
  for (const [bytes, ...path] of slots) {
    place(frame, path, body.subarray(at, at + bytes), keep);
    at += bytes;
  }
  if (at !== body.length) throw new ConveyorError('ERR_BRIDGE', `The Python worker sent a frame whose strings do not fill it: the stream is corrupt`);
  for (const [requestId, slotIndex, ...path] of echoes) {
    const part = echoed(requestId, slotIndex);
    if (part === undefined) {
      throw new ConveyorError(
        'ERR_BRIDGE',
        `The Python worker echoed string ${slotIndex} of request ${requestId}, which the engine does not hold: the stream is corrupt`,
      );
    }
    place(frame, path, part, (same) => same);
  }
  return frame;
}

/** Puts a string at `path` in `frame`: a message body's `data` keeps its bytes (as `keep` gives them), anything else becomes text. */
function place(frame: unknown, path: Path, part: Buffer, keep: (part: Buffer) => Buffer): void {
  const last = path.pop()!;
  let parent = frame as Record<string | number, unknown>;
  for (const key of path) parent = parent[key] as Record<string | number, unknown>;
  if (last === 'data' && typeof parent.classname === 'string' && typeof parent.encoding === 'string') carryBodyBytes(parent, keep(part));
  else parent[last] = utf8Text(part);
}
