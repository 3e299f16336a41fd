/**
 * Length-prefixed frames: a 4-byte big-endian length, then that many bytes of UTF-8 JSON. Used on
 * the dedicated pipes between the engine and a Python worker (never on stdout/stderr).
 */
import { ConveyorError } from '../core/errors.ts';

/** Large enough for a 4 MB string escaped twice (JSON in JSON), small enough to catch a garbled length. */
export const maxFrameBytes = 256 * 1024 * 1024;

export function encodeFrame(value: unknown): Buffer {
  const text = JSON.stringify(value);
  const length = Buffer.byteLength(text, 'utf8');
  // One buffer, the text encoded straight into it after the header (no intermediate copy).
  const frame = Buffer.allocUnsafe(4 + length);
  frame.writeUInt32BE(length, 0);
  frame.write(text, 4, 'utf8');
  return frame;
}

/** Collects chunks and yields whole frames; chunks are only concatenated once a frame is complete. */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;

  push(chunk: Buffer): unknown[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: unknown[] = [];
    for (;;) {
      if (this.buffered < 4) break;
      const head = this.peekHeader();
      if (head > maxFrameBytes) {
        throw new ConveyorError('ERR_BRIDGE', `The Python worker sent a frame of ${head} bytes, over the ${maxFrameBytes}-byte limit: the stream is corrupt`);
      }
      if (this.buffered < 4 + head) break;
      const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
      frames.push(JSON.parse(all.toString('utf8', 4, 4 + head)));
      const rest = all.subarray(4 + head);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.buffered = rest.length;
    }
    return frames;
  }

  private peekHeader(): number {
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
