import { describe, expect, it } from 'vitest';
import { schemaToTree, type SchemaTreeNode } from './schema-tree.ts';

/** name:type, children in brackets — a compact view of the tree. */
function show(nodes: SchemaTreeNode[]): string[] {
  return nodes.map(
    (n) => `${n.path}:${n.type}${n.enum ? `{${n.enum.join(',')}}` : ''}${n.required ? '!' : ''}${n.children.length ? `[${show(n.children).join(' ')}]` : ''}`,
  );
}

const POST_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  title: 'PostMessage',
  properties: {
    post: { allOf: [{ $ref: '#/$defs/PostClass' }], default: null },
    to_email_address: { type: 'string', default: null },
    my_list: { type: 'array', items: { type: 'string' } },
    found: { type: 'boolean' },
    count: { type: 'integer' },
    list_of_post: { type: 'array', items: { allOf: [{ $ref: '#/$defs/PostClass' }] } },
    status: { $ref: '#/$defs/Status' },
    maybe: { anyOf: [{ type: 'number' }, { type: 'null' }] },
  },
  required: ['found'],
  $defs: {
    PostClass: { type: 'object', properties: { title: { type: 'string' }, created_utc: { type: 'number' } } },
    Status: { type: 'string', enum: ['ACTIVE', 'INACTIVE', 'PENDING'] },
  },
};

describe('schemaToTree', () => {
  it('maps types, arrays as name(), $ref/allOf, enums and nullable anyOf', () => {
    expect(show(schemaToTree(POST_SCHEMA))).toEqual([
      'post:object[post.title:%String post.created_utc:%Numeric]',
      'to_email_address:%String',
      'my_list():%String',
      'found:%Boolean!',
      'count:integer',
      'list_of_post():object[list_of_post().title:%String list_of_post().created_utc:%Numeric]',
      'status:%String{ACTIVE,INACTIVE,PENDING}',
      'maybe:%Numeric',
    ]);
    expect(schemaToTree(JSON.stringify(POST_SCHEMA))[2]).toMatchObject({ name: 'my_list()', repeating: true });
  });

  it('resolves $ref at any depth against the root and stops at cycles', () => {
    const schema = {
      type: 'object',
      properties: { node: { $ref: '#/$defs/Node' } },
      $defs: { Node: { type: 'object', properties: { value: { type: 'string' }, next: { $ref: '#/$defs/Node' } } } },
    };
    expect(show(schemaToTree(schema))).toEqual(['node:object[node.value:%String node.next:object]']);
  });

  it('rejects invalid schemas with a clear message', () => {
    expect(() => schemaToTree('{not json')).toThrow(/the schema is not valid JSON/);
    expect(() => schemaToTree([1])).toThrow(/must be an object/);
    expect(() => schemaToTree({ properties: { a: { $ref: '#/$defs/Nope' } } })).toThrow(/\$ref "#\/\$defs\/Nope" does not point into its \$defs/);
  });
});
