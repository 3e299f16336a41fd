/** The API's description of itself (`GET /openapi.json`) and the Prometheus metrics (`GET /metrics`, at the root). */
import { Type } from 'typebox';
import { noQuery, ok, route } from './route.ts';

export const openApi = route({
  method: 'GET',
  path: '/openapi.json',
  role: 'viewer',
  spec: false,
  tag: 'Monitoring',
  summary: 'This OpenAPI 3.1 document',
  querystring: noQuery,
  replies: ok(
    'OpenAPI document',
    Type.Object(
      { openapi: Type.String(), info: Type.Record(Type.String(), Type.Unknown()), paths: Type.Record(Type.String(), Type.Unknown()) },
      { additionalProperties: true },
    ),
  ),
});

export const metrics = route({
  method: 'GET',
  path: '/metrics',
  role: 'viewer',
  spec: false,
  tag: 'Monitoring',
  summary: 'Prometheus metrics: messages per item, queue depths, production status, request durations',
  querystring: noQuery,
  replies: { 200: { description: 'Prometheus text format 0.0.4', schema: Type.String(), contentType: 'text/plain; version=0.0.4' } },
});
