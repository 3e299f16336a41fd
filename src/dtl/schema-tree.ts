/**
 * JSON Schema → the tree the portal's mapping editor shows (dtl-reference §1.18, iop-reference
 * §6.6): `string`/`number`/`boolean` → `%String`/`%Numeric`/`%Boolean`, other primitive types as
 * written; arrays get a `()` suffix and their items as children; `$ref` (against the root's `$defs`
 * or `definitions`, at any depth), `allOf` and `anyOf`/`oneOf` with null are resolved; enums become
 * `%String` with their values. Each node carries the DTL path to drop into `source.{…}`.
 */
import { ConveyorError } from '../core/errors.ts';

export interface SchemaTreeNode {
  /** Display name; repeating fields end with `()`. */
  name: string;
  /** The path inside `{ }`: `post.Title`, `list_post().Title`. */
  path: string;
  type: string;
  repeating: boolean;
  required: boolean;
  enum?: string[];
  description?: string;
  children: SchemaTreeNode[];
}

type Schema = Record<string, unknown>;

const PRIMITIVES: Record<string, string> = { string: '%String', number: '%Numeric', boolean: '%Boolean' };

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

class TreeBuilder {
  constructor(private readonly root: Schema) {}

  resolveRef(ref: string, seen: Set<string>): Schema {
    if (seen.has(ref)) return { type: 'object', title: ref.split('/').pop(), 'x-cycle': true };
    const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
    const defs = match ? this.root[match[1]!] : undefined;
    const target = match && isSchema(defs) ? defs[decodeURIComponent(match[2]!)] : undefined;
    if (!isSchema(target)) throw new ConveyorError('ERR_INVALID_INPUT', `the schema's $ref "${ref}" does not point into its $defs`);
    seen.add(ref);
    return target;
  }

  /** Flattens $ref, allOf and nullable anyOf/oneOf into one schema object. */
  resolve(schema: Schema, seen: Set<string>): Schema {
    let current = schema;
    for (let guard = 0; guard < 64; guard++) {
      if (typeof current.$ref === 'string') {
        const { $ref, ...rest } = current;
        current = { ...this.resolveRef($ref as string, seen), ...rest };
        continue;
      }
      if (Array.isArray(current.allOf)) {
        const { allOf, ...rest } = current;
        const parts = (allOf as unknown[]).filter(isSchema).map((part) => this.resolve(part, seen));
        const merged: Schema = { ...rest };
        for (const part of parts) {
          const properties = { ...(isSchema(merged.properties) ? merged.properties : {}), ...(isSchema(part.properties) ? part.properties : {}) };
          Object.assign(merged, part, Object.keys(properties).length ? { properties } : {});
        }
        current = merged;
        continue;
      }
      const options = Array.isArray(current.anyOf) ? current.anyOf : Array.isArray(current.oneOf) ? current.oneOf : null;
      if (options) {
        const nonNull = (options as unknown[]).filter((o) => isSchema(o) && o.type !== 'null') as Schema[];
        if (nonNull.length === 1) {
          const rest = { ...current };
          delete rest.anyOf;
          delete rest.oneOf;
          current = { ...nonNull[0]!, ...rest };
          continue;
        }
      }
      return current;
    }
    throw new ConveyorError('ERR_INVALID_INPUT', 'the schema nests $ref / allOf too deeply');
  }

  typeOf(schema: Schema): string {
    const type = Array.isArray(schema.type) ? (schema.type as unknown[]).find((t) => t !== 'null') : schema.type;
    if (Array.isArray(schema.enum) && (type === undefined || type === 'string')) return 'string';
    if (typeof type === 'string') return type;
    if (isSchema(schema.properties)) return 'object';
    if (schema.items !== undefined) return 'array';
    return 'object';
  }

  node(name: string, path: string, raw: Schema, required: boolean, seen: Set<string>): SchemaTreeNode {
    // Refs resolved on the way down; a ref met again below is a cycle and stops the expansion.
    const scope = new Set(seen);
    const schema = this.resolve(raw, scope);
    const type = this.typeOf(schema);
    const out: SchemaTreeNode = { name, path, type: PRIMITIVES[type] ?? type, repeating: false, required, children: [] };
    if (typeof schema.description === 'string') out.description = schema.description;
    if (Array.isArray(schema.enum)) {
      out.type = '%String';
      out.enum = (schema.enum as unknown[]).map(String);
    }
    if (type === 'array') {
      const items = isSchema(schema.items) ? schema.items : {};
      const itemNode = this.node(name, `${path}()`, items, required, scope);
      return { ...itemNode, name: `${name}()`, path: `${path}()`, repeating: true };
    }
    if (type === 'object' && schema['x-cycle'] !== true) out.children = this.properties(schema, path, scope);
    return out;
  }

  properties(schema: Schema, prefix: string, seen: Set<string>): SchemaTreeNode[] {
    const props = isSchema(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]).map(String) : []);
    return Object.entries(props)
      .filter((entry): entry is [string, Schema] => isSchema(entry[1]))
      .map(([key, value]) => this.node(key, prefix === '' ? key : `${prefix}.${key}`, value, required.has(key), seen));
  }
}

/** The editor tree of a JSON Schema (an object or its JSON text): the top-level properties. */
export function schemaToTree(schema: unknown): SchemaTreeNode[] {
  let root = schema;
  if (typeof root === 'string') {
    try {
      root = JSON.parse(root);
    } catch (error) {
      throw new ConveyorError('ERR_INVALID_INPUT', `the schema is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (!isSchema(root)) throw new ConveyorError('ERR_INVALID_INPUT', 'a JSON schema must be an object');
  const builder = new TreeBuilder(root);
  return builder.properties(builder.resolve(root, new Set()), '', new Set());
}
