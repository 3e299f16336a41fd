/**
 * The JSON shapes of the portal's routes that carry the engine's own records (camelCase, times as
 * epoch milliseconds): message headers, stored messages, class bindings, item states.
 */
import { Type, type Static } from 'typebox';
import { closed } from './route.ts';

const nullableText = Type.Union([Type.String(), Type.Null()]);
const nullableInteger = Type.Union([Type.Integer(), Type.Null()]);

export const messageStatus = Type.Union([
  Type.Literal('queued'),
  Type.Literal('delivered'),
  Type.Literal('completed'),
  Type.Literal('error'),
  Type.Literal('discarded'),
]);
export const messageKind = Type.Union([Type.Literal('request'), Type.Literal('response')]);

const headerFields = {
  id: Type.Integer(),
  namespace: Type.String(),
  sessionId: Type.Integer(),
  parentId: nullableInteger,
  correspondingId: nullableInteger,
  kind: messageKind,
  source: Type.String(),
  target: Type.String(),
  responseRequired: Type.Boolean(),
  status: messageStatus,
  priority: Type.Integer(),
  description: Type.String(),
  error: nullableText,
  attempts: Type.Integer(),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
  leaseOwner: nullableText,
  leaseUntil: nullableInteger,
};

export const messageHeader = closed(headerFields);
export type MessageHeaderJson = Static<typeof messageHeader>;

const messageBody = closed({
  classname: Type.String(),
  encoding: Type.Union([Type.Literal('json'), Type.Literal('pickle'), Type.Literal('native'), Type.Literal('empty')]),
  data: Type.String(),
});

export const storedMessage = closed({ ...headerFields, body: messageBody });
export type StoredMessageJson = Static<typeof storedMessage>;

/** A setting a class declares; the optional fields are IoP 4's `setting()` metadata (iop4-reference §2.3). */
const declaredSetting = closed({
  name: Type.String(),
  type: Type.String(),
  defaultValue: nullableText,
  description: Type.String(),
  dataType: Type.Optional(Type.String({ description: 'IRIS datatype: Integer, Numeric, Boolean, String, Ens.DataType.ConfigName or a class name' })),
  category: Type.Optional(Type.String({ description: 'Basic, Connection, Info, Additional, Alerting, Dev or any text' })),
  required: Type.Optional(Type.Boolean()),
  control: Type.Optional(
    Type.String({ description: 'IoP editor context, e.g. selector?context={Ens.ContextSearch/ProductionItems?targets=1&productionName=@productionId}' }),
  ),
  isTarget: Type.Optional(Type.Boolean({ description: 'A target() setting: its value names items' })),
});

const componentKind = Type.Union([
  Type.Literal('service'),
  Type.Literal('process'),
  Type.Literal('operation'),
  Type.Literal('inbound_adapter'),
  Type.Literal('outbound_adapter'),
]);

export const classBinding = closed({
  name: Type.String(),
  kind: componentKind,
  runtime: Type.Union([Type.Literal('python'), Type.Literal('builtin')]),
  module: nullableText,
  className: nullableText,
  classpaths: Type.Array(Type.String()),
  settings: Type.Array(declaredSetting),
  adapterType: nullableText,
  updatedAt: Type.Integer(),
});
export type ClassBindingJson = Static<typeof classBinding>;

/** An item of a production with its live state (`GET /items`). */
export const itemState = closed({
  name: Type.String(),
  classname: Type.String(),
  kind: Type.String({ description: 'service | process | operation | inbound_adapter | outbound_adapter | component' }),
  enabled: Type.Boolean(),
  state: Type.String({ description: 'running | stopped | error | disabled' }),
  jobs: Type.Integer(),
  error: nullableText,
  queued: Type.Integer(),
  delivered: Type.Integer(),
  oldest: nullableInteger,
  targets: Type.Array(Type.String()),
});
export type ItemStateJson = Static<typeof itemState>;
