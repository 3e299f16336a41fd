/**
 * What the client sends and reads, typed from the route declarations (src/core/contract). Where a
 * server of IoP answers differently from Conveyor (iop-reference §3.3: `AutoStart` and `truncated`
 * as 0/1, fields it may leave out), the type here is the tolerant reading the CLI needs.
 */
import type { Static } from 'typebox';
import type { atelierReply } from '../core/contract/document-routes.ts';
import type { importSchema } from '../core/contract/dtl-routes.ts';
import type { ExportItemJson, ExportJson, ListRecordJson, LogEntryJson } from '../core/contract/production-shapes.ts';
import type { BodyOf, ReplyOf } from '../core/contract/route.ts';
import type * as spec from '../core/contract/spec-routes.ts';
import type { migrateLocalReply } from '../core/contract/spec-routes.ts';

export type VersionReply = ReplyOf<typeof spec.version>;
export type StatusReply = ReplyOf<typeof spec.status>;
export type StartReply = ReplyOf<typeof spec.start>;
export type LifecycleReply = ReplyOf<typeof spec.stop> | ReplyOf<typeof spec.kill> | ReplyOf<typeof spec.restart> | ReplyOf<typeof spec.update>;

/** One value of `GET /list`; IoP servers send `AutoStart` as 0/1 and may use other status words. */
export interface ProductionStatusRecord extends Omit<ListRecordJson, 'AutoStart' | 'Status'> {
  Status: string;
  AutoStart: boolean | number;
}
export type ProductionList = Record<string, ProductionStatusRecord>;

export type LogEntryWire = LogEntryJson;

/** An exported item; `category` is read when a server sends it (Conveyor's export does not). */
export interface ExportedItem extends ExportItemJson {
  category?: string;
}
export interface ExportedProduction extends Omit<ExportJson, 'items'> {
  items: ExportedItem[];
}

type WithoutNamespace<T> = Omit<T, 'namespace'>;

/** A `POST /test` call; the client adds the namespace. */
export type TestCall = WithoutNamespace<BodyOf<typeof spec.test>>;

/** The `POST /test` reply; IoP servers send `truncated` as 0/1 and may leave fields out. */
export interface TestReply extends Partial<Omit<ReplyOf<typeof spec.test>, 'truncated'>> {
  truncated?: boolean | number;
}

export type PackageFile = Static<typeof spec.packageFile>;

/** The upload of `PUT /migrate` (package and files required here: the client never sends a partial one). */
export interface MigrateUpload extends WithoutNamespace<BodyOf<typeof spec.migrate>> {
  package: string;
  body: PackageFile[];
}

/** What a server may answer to a migrate: an empty body, or the console lines of a local-path migrate. */
export type MigrateReport = Partial<Static<typeof migrateLocalReply>>;

/** The Atelier compile reply; read tolerantly (other servers may leave parts out). */
export type CompileReply = Partial<Static<typeof atelierReply>>;

export type SchemaImport = WithoutNamespace<BodyOf<typeof importSchema>>;
