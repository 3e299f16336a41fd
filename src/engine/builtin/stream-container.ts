/**
 * `Ens.StreamContainer`, the message IRIS's passthrough file hosts exchange: a stream (the file's
 * bytes) and the name of the file it came from. Stored as a native body whose `Stream` is the
 * content in base64, so any file, binary or text, travels unchanged; `Size` says how many bytes.
 */
import { ConveyorError } from '../../core/errors.ts';
import type { MessageBody } from '../../core/message.ts';

export const streamContainerClass = 'Ens.StreamContainer';

export interface StreamContent {
  /** The name of the file the content came from ('' when unknown). */
  originalFilename: string;
  content: Buffer;
}

export function streamContainer(originalFilename: string, content: Buffer): MessageBody {
  return {
    classname: streamContainerClass,
    encoding: 'native',
    data: JSON.stringify({ OriginalFilename: originalFilename, Size: content.length, Stream: content.toString('base64') }),
  };
}

/**
 * The bytes a body carries: a stream container's stream, the text of a string message
 * (`StringValue`, UTF-8, or the `charset` given), else the body's data as it is stored.
 */
export function streamContent(body: MessageBody, charset: BufferEncoding = 'utf8'): StreamContent {
  if (body.encoding === 'native' && body.data !== '') {
    const parsed = JSON.parse(body.data) as { Stream?: unknown; OriginalFilename?: unknown; StringValue?: unknown };
    if (body.classname === streamContainerClass) {
      if (typeof parsed.Stream !== 'string') throw new ConveyorError('ERR_INVALID_INPUT', `This ${streamContainerClass} has no Stream`);
      return {
        originalFilename: typeof parsed.OriginalFilename === 'string' ? parsed.OriginalFilename : '',
        content: Buffer.from(parsed.Stream, 'base64'),
      };
    }
    if (typeof parsed.StringValue === 'string') return { originalFilename: '', content: Buffer.from(parsed.StringValue, charset) };
  }
  return { originalFilename: '', content: Buffer.from(body.data, charset) };
}
