/**
 * A real DtlHost for the vector tests: lookup tables from `lookup.json`, `<sql>` on an in-memory
 * SQLite database loaded from `sql-fixture.json` (better-sqlite3), Python run by a `python3`
 * child per call. The engine's production host (store + Python worker) provides the same hooks.
 */
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import type { DtlHost, PythonRequest, PythonResult, SqlQuery } from '../../src/dtl/index.ts';

/** Python side: a document proxy with the IoP virtual-document API over the JSON it was given. */
export const PYTHON_EVALUATOR = String.raw`
import json, re, sys

def _steps(path):
    out = []
    for part in path.split('.'):
        m = re.match(r'^([A-Za-z_%][A-Za-z0-9_]*)?((?:\([^)]*\))*)$', part)
        if not m:
            raise ValueError('bad path ' + path)
        if m.group(1):
            out.append(m.group(1))
        for ix in re.findall(r'\(([^)]*)\)', m.group(2)):
            out.append(int(ix) if ix.isdigit() else ix.strip('"'))
    return out

class Document:
    def __init__(self, data):
        self.data = data
    def GetValueAt(self, path):
        node = self.data
        for s in _steps(path):
            if isinstance(s, int) and isinstance(node, list):
                node = node[s - 1] if 0 < s <= len(node) else None
            elif isinstance(node, dict):
                node = node.get(str(s))
            else:
                node = None
            if node is None:
                return ''
        return node
    def SetValueAt(self, value, path, action='set', key=''):
        steps = _steps(path)
        node = self.data
        for s in steps[:-1]:
            node = node.setdefault(str(s), {})
        last = str(steps[-1])
        if action == 'append':
            node.setdefault(last, []).append(value)
        else:
            node[last] = value
        return 1

request = json.loads(sys.stdin.read())
scope = dict(request['locals'])
scope.update(source=Document(request['source']), target=Document(request['target']), aux=request['aux'])
if request['imports'].strip():
    exec(request['imports'], scope)
result = {}
if request['mode'] == 'eval':
    result['value'] = eval(request['code'], scope)
else:
    exec(request['code'], scope)
    result['target'] = scope['target'].data
    result['locals'] = {k: v for k, v in scope.items() if k in request['locals'] or (not k.startswith('__') and isinstance(v, (str, int, float, bool, list, dict)))}
sys.stdout.write(json.dumps(result))
`;

export function runPython(request: PythonRequest): Promise<PythonResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.env.PYTHON ?? 'python3', ['-c', PYTHON_EVALUATOR], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(err.trim().split('\n').pop() ?? `python3 exited with ${code}`));
      else resolve(JSON.parse(out) as PythonResult);
    });
    child.stdin.end(JSON.stringify(request));
  });
}

/** An in-memory SQLite database with `Schema.Table` tables from a fixture `{ "Schema.Table": [rows] }`. */
export function sqliteRunner(fixture: Record<string, Record<string, unknown>[]>): (query: SqlQuery) => (string | number | null)[] | undefined {
  const db = new Database(':memory:');
  for (const [qualified, rows] of Object.entries(fixture)) {
    const [schema, table] = qualified.includes('.') ? qualified.split('.') : ['main', qualified];
    if (schema !== 'main') db.exec(`ATTACH DATABASE ':memory:' AS "${schema}"`);
    const columns = Object.keys(rows[0] ?? {});
    db.exec(`CREATE TABLE "${schema}"."${table}" (${columns.map((c) => `"${c}"`).join(', ')})`);
    const insert = db.prepare(`INSERT INTO "${schema}"."${table}" VALUES (${columns.map(() => '?').join(', ')})`);
    for (const row of rows) insert.run(...columns.map((c) => row[c] as string | number | null));
  }
  return (query) => {
    const row = db.prepare(query.text).raw(true).get(...query.params) as (string | number | null)[] | undefined;
    return row;
  };
}

export function vectorHost(files: { lookup?: Record<string, Record<string, string>>; sql?: Record<string, Record<string, unknown>[]> }): DtlHost {
  const host: DtlHost = { runPython };
  if (files.lookup) {
    const tables = files.lookup;
    host.lookup = (table, key) => (Object.hasOwn(tables, table) && Object.hasOwn(tables[table]!, key) ? tables[table]![key] : undefined);
  }
  if (files.sql) host.runSql = sqliteRunner(files.sql);
  return host;
}
