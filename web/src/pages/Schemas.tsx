/**
 * Schemas: the registered doc types, a schema's tree, and the spec's import (an uploaded file, or a file
 * of the server's import folder — importFolder, default <home>/imports — with package and name).
 */
import { useState, type FormEvent } from 'react';
import { dtlRoutes } from '../../../src/client/routes.ts';
import { ErrorNote, Panel, formatTime, useAction, useLoad } from '../components/common.tsx';
import { SchemaTree } from '../dtl/SchemaTree.tsx';
import { useSession } from '../session.tsx';

export function Schemas() {
  const { api, can } = useSession();
  const list = useLoad(() => api.call(dtlRoutes.listSchemas), [api]);
  const [selected, setSelected] = useState('');
  const tree = useLoad(async () => (selected ? (await api.call(dtlRoutes.schemaTree, { params: { name: selected } })).fields : []), [api, selected]);
  const [pkg, setPkg] = useState('');
  const [name, setName] = useState('');
  const [path, setPath] = useState('');
  const [upload, setUpload] = useState<{ file: string; text: string } | null>(null);
  const importing = useAction();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const ok = await importing.run(() => api.call(dtlRoutes.importSchema, { body: { package: pkg, name, ...(upload ? { schema: upload.text } : { path }) } }));
    if (ok) {
      list.reload();
      setSelected(name);
    }
  }

  return (
    <>
      <Panel title="Schemas">
        <ErrorNote error={list.error} />
        <div className="config-layout">
          <table className="grid" aria-label="Schemas">
            <thead>
              <tr>
                <th>Name (doc type)</th>
                <th>Package</th>
                <th>Updated (UTC)</th>
              </tr>
            </thead>
            <tbody>
              {list.data?.schemas.length === 0 ? (
                <tr>
                  <td colSpan={3} className="muted">
                    No schema: migrate a settings.py with SCHEMAS, or import a JSON schema below.
                  </td>
                </tr>
              ) : null}
              {list.data?.schemas.map((schema) => (
                <tr key={schema.name} className={`clickable${selected === schema.name ? ' selected-row' : ''}`} onClick={() => setSelected(schema.name)}>
                  <td>
                    <button type="button" className="link" onClick={() => setSelected(schema.name)}>
                      {schema.name}
                    </button>
                  </td>
                  <td>{schema.category}</td>
                  <td>{formatTime(schema.updatedAt, false)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="schema-tree" role="region" aria-label="Schema tree">
            {selected ? (
              <>
                <h3>{selected}</h3>
                <ErrorNote error={tree.error} />
                <SchemaTree side="source" fields={tree.data ?? []} />
              </>
            ) : (
              <p className="muted">Select a schema to browse its fields.</p>
            )}
          </div>
        </div>
      </Panel>
      {can('admin') ? (
        <Panel title="Import a JSON schema">
          <form className="filters" onSubmit={(event) => void submit(event)} aria-label="Import schema">
            <label>
              Package
              <input value={pkg} onChange={(e) => setPkg(e.target.value)} required placeholder="demo" aria-label="Package" />
            </label>
            <label>
              Name
              <input value={name} onChange={(e) => setName(e.target.value)} required placeholder="demo.Person" aria-label="Schema name" />
            </label>
            <label>
              File to upload
              <input
                type="file"
                accept=".json,application/json"
                aria-label="Schema file"
                onChange={(e) => {
                  const file = e.target.files?.[0];
                  // A file that cannot be read shows its error where the import's errors show.
                  void importing.run(async () => setUpload(file ? { file: file.name, text: await file.text() } : null));
                }}
              />
            </label>
            <label title="Only files in the server's import folder (importFolder in conveyor.yaml, default <home>/imports) are read">
              …or a file in the server's import folder
              <input
                value={path}
                onChange={(e) => setPath(e.target.value)}
                disabled={upload !== null}
                placeholder="person.schema.json"
                aria-label="Server path"
              />
            </label>
            <button type="submit" className="primary" disabled={importing.busy || (!upload && !path)}>
              Import
            </button>
          </form>
          <ErrorNote error={importing.error} />
        </Panel>
      ) : null}
    </>
  );
}
