/**
 * Beyond the spec: retention (docs/operations.md, Retention). A purge of old finished messages and
 * log entries (admin), and a namespace's retention policy with what its store holds. Failures answer
 * with the status of their error code and `{error}` (400 for a bad bound).
 */
import { Type } from 'typebox';
import { closed, namespaceBody, namespaceQuery, ok, route } from './route.ts';

const tag = 'Retention';
const daysField = (what: string) =>
  Type.Union([Type.Number({ minimum: 0, description: `${what} older than this many days are purged (fractions allowed)` }), Type.Null()]);
const isoTime = (what: string) => Type.Union([Type.String({ description: `${what} (ISO 8601, UTC)` }), Type.Null()]);

export const retentionPolicy = closed({
  messageDays: daysField('Finished messages'),
  logDays: daysField('Event-log entries'),
  maxStoreBytes: Type.Union([
    Type.Integer({ minimum: 1, description: 'Past this many bytes of live data, the oldest finished messages go first until it is under' }),
    Type.Null(),
  ]),
});

const purgeFigures = {
  dryRun: Type.Boolean(),
  messages: Type.Integer({ description: 'Message headers purged (or that would be)' }),
  bodies: Type.Integer({ description: 'Message bodies among them' }),
  logEntries: Type.Integer({ description: 'Event-log entries purged (or that would be)' }),
  bytesEstimate: Type.Integer({ description: 'About how many bytes those rows held' }),
  reclaimedBytes: Type.Integer({ description: 'How much smaller the store became (SQLite with incremental vacuum; 0 on a dry run)' }),
  batches: Type.Integer(),
  durationMs: Type.Integer(),
  complete: Type.Boolean({
    description: 'False when the purge stopped at its time budget (4 minutes, inside the API request timeout): run it again for the rest',
  }),
};

export const purgeMessages = route({
  method: 'POST',
  path: '/messages/purge',
  role: 'admin',
  spec: false,
  tag,
  summary:
    'Purge finished messages (header, body) and event-log entries older than a bound; never a queued, in-progress or suspended message, nor a message of a session still in progress',
  querystring: namespaceQuery(),
  body: namespaceBody({
    olderThan: Type.Optional(Type.String({ description: 'Purge what was created before this instant (ISO 8601; UTC when no zone is given)' })),
    keepDays: Type.Optional(Type.Number({ minimum: 0, description: 'Keep this many days, purge what is older (fractions allowed)' })),
    dryRun: Type.Optional(Type.Boolean({ description: 'Count and measure only; delete nothing' })),
    includeLog: Type.Optional(Type.Boolean({ description: 'Purge event-log entries older than the bound too (default true)' })),
  }),
  replies: ok(
    'What was purged (or would be, on a dry run)',
    closed({
      purged: Type.Integer({ description: 'Messages purged (or that would be)' }),
      olderThan: Type.String({ description: 'The bound (ISO 8601)' }),
      ...purgeFigures,
    }),
  ),
});

const storeReport = closed({
  namespace: Type.String(),
  policy: Type.Union([retentionPolicy, Type.Null()]),
  usage: closed({
    storeBytes: Type.Integer({ description: 'Bytes the whole store uses (every namespace)' }),
    dataBytes: Type.Integer({ description: 'Bytes of live data, what the size cap compares' }),
    freeBytes: Type.Integer({ description: 'Bytes free for reuse inside the store (SQLite freelist)' }),
    reclaim: Type.Union([Type.Literal('incremental'), Type.Literal('reuse'), Type.Literal('vacuum')], {
      description: 'incremental: freed pages go back to the file system; reuse: they are reused, the file keeps its size; vacuum: PostgreSQL VACUUM',
    }),
    messages: Type.Integer(),
    oldestMessage: isoTime('Creation time of the oldest message'),
    logEntries: Type.Integer(),
    oldestLogEntry: isoTime('Time of the oldest event-log entry'),
  }),
  lastRun: Type.Union([
    closed({
      at: Type.String(),
      messages: Type.Integer(),
      logEntries: Type.Integer(),
      bytesEstimate: Type.Integer(),
      error: Type.Union([Type.String(), Type.Null()]),
    }),
    Type.Null(),
  ]),
});

export const getRetention = route({
  method: 'GET',
  path: '/retention',
  role: 'viewer',
  spec: false,
  tag,
  summary: "The namespace's retention policy, what its store holds (size, oldest message) and the last background run on this server",
  querystring: namespaceQuery(),
  replies: ok('Retention', storeReport),
});

export const putRetention = route({
  method: 'PUT',
  path: '/retention',
  role: 'admin',
  spec: false,
  tag,
  summary: "Set the namespace's retention policy (all three null: no policy, nothing is purged in the background)",
  querystring: namespaceQuery(),
  body: namespaceBody({
    messageDays: retentionPolicy.properties.messageDays,
    logDays: retentionPolicy.properties.logDays,
    maxStoreBytes: retentionPolicy.properties.maxStoreBytes,
  }),
  replies: ok('Retention', storeReport),
});
