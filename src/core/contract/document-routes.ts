/**
 * The two Atelier routes remote init (`iop -i`) calls, plus reading a document back, in the shapes
 * of iop-reference §2.7. These are another product's API: its clients may send fields and query
 * parameters we do not use, so unknown ones are accepted here (and ignored).
 */
import { Type } from 'typebox';
import { anyJson, ok, pathText, route } from './route.ts';

const tag = 'Class documents';

const atelierError = Type.Object({ error: Type.String(), code: Type.Integer(), domain: Type.String(), id: Type.String(), params: Type.Array(Type.String()) });

/** `{status: {errors, summary}, console, result}`; `result` is free (its fields differ per route). */
export const atelierReply = Type.Object({
  status: Type.Object({ errors: Type.Array(atelierError), summary: Type.String() }),
  console: Type.Array(Type.String()),
  result: Type.Record(Type.String(), anyJson),
});

const documentParams = Type.Object({ namespace: pathText('Namespace'), name: pathText('Document name with extension, e.g. Demo.MyTransform.cls') });

export const putDocument = route({
  method: 'PUT',
  path: '/:namespace/doc/:name',
  role: 'admin',
  spec: false,
  tag,
  summary: 'Upload (create or replace) a class document',
  params: documentParams,
  querystring: Type.Object({ ignoreConflict: Type.Optional(Type.String({ description: 'Accepted for compatibility; uploads always replace' })) }),
  body: Type.Object({
    enc: Type.Optional(Type.Boolean({ description: 'true: content holds base64 chunks' })),
    content: Type.Array(Type.String(), { description: 'The lines of the document' }),
  }),
  replies: { 200: { description: 'Stored (replaced)', schema: atelierReply }, 201: { description: 'Stored (a new document)', schema: atelierReply } },
});

export const getDocument = route({
  method: 'GET',
  path: '/:namespace/doc/:name',
  role: 'viewer',
  spec: false,
  tag,
  summary: 'Read a class document back',
  params: documentParams,
  replies: ok('The document, as lines', atelierReply),
});

export const compileDocuments = route({
  method: 'POST',
  path: '/:namespace/action/compile',
  role: 'admin',
  spec: false,
  tag,
  summary: 'Compile uploaded documents: DTL transform classes become transforms, other classes are kept',
  params: Type.Object({ namespace: pathText('Namespace') }),
  querystring: Type.Object({ flags: Type.Optional(Type.String({ description: 'Accepted for compatibility (e.g. cuk)' })) }),
  body: Type.Array(Type.String(), { description: 'The document names to compile' }),
  replies: ok('Compile report; errors in status.errors', atelierReply),
});
