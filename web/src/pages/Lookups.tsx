/**
 * Lookup tables: list, edit entries, create, delete, import (JSON object or RFC 4180 CSV key,value) and
 * export. An import into a table that has entries asks first: merge the file into the table, or replace
 * the table's entries with the file's; either way nothing is stored until Save table.
 */
import { useEffect, useState } from 'react';
import { dtlRoutes } from '../../../src/client/routes.ts';
import { failedStatus } from '../connection.ts';
import { ErrorNote, Panel, useAction, useLoad } from '../components/common.tsx';
import { combineEntries, parseLookupFile, type Entry } from '../lookup-file.ts';
import { useSession } from '../session.tsx';

export function Lookups() {
  const { api, can } = useSession();
  const tables = useLoad(() => api.call(dtlRoutes.listLookups), [api]);
  const [table, setTable] = useState('');
  const [entries, setEntries] = useState<Entry[]>([]);
  const [newName, setNewName] = useState('');
  const [fileError, setFileError] = useState('');
  /** A file read but not yet put into the table: waiting for merge, replace or cancel. */
  const [pending, setPending] = useState<{ file: string; entries: Entry[] } | null>(null);
  const [importNote, setImportNote] = useState('');
  const save = useAction();
  // A table just named with "New table" does not exist until it is saved: a 404 reads as empty.
  const loaded = useLoad(async () => {
    if (!table) return null;
    try {
      return (await api.call(dtlRoutes.getLookup, { params: { name: table } })).entries;
    } catch (error) {
      if (failedStatus(error) === 404) return null;
      throw error;
    }
  }, [api, table]);
  const editable = can('operator');

  useEffect(() => {
    if (loaded.data) setEntries(Object.entries(loaded.data).map(([key, value]) => ({ key, value })));
  }, [loaded.data]);

  const filled = entries.filter((entry) => entry.key !== '');
  function importInto(mode: 'replace' | 'merge', file: string, imported: Entry[]) {
    setEntries(combineEntries(entries, imported, mode));
    setPending(null);
    setImportNote(
      mode === 'merge'
        ? `${file}: ${imported.length} entries merged into ${table}. Press Save table to store them.`
        : `${file}: the table now holds the file's ${imported.length} entries. Press Save table to store them.`,
    );
  }
  const overlap = pending ? pending.entries.filter((entry) => filled.some((current) => current.key === entry.key)).length : 0;

  const duplicate = entries.find((entry, index) => entries.findIndex((other) => other.key === entry.key) !== index);
  const saveTable = () =>
    save.run(async () => {
      await api.call(dtlRoutes.putLookup, {
        params: { name: table },
        body: { entries: Object.fromEntries(entries.filter((e) => e.key !== '').map((e) => [e.key, e.value])) },
      });
      tables.reload();
      loaded.reload();
      setImportNote('');
    });

  return (
    <Panel
      title="Lookup tables"
      actions={
        editable ? (
          <form
            className="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              setTable(newName);
              setEntries([{ key: '', value: '' }]);
              setNewName('');
            }}
          >
            <input value={newName} onChange={(e) => setNewName(e.target.value)} placeholder="New table name" aria-label="New table name" />
            <button type="submit" disabled={!newName}>
              New table
            </button>
          </form>
        ) : null
      }
    >
      <ErrorNote error={tables.error} />
      <div className="lookup-layout">
        <ul className="table-list" aria-label="Tables">
          {tables.data?.tables.map((name) => (
            <li key={name}>
              <button
                type="button"
                className={name === table ? 'link active' : 'link'}
                onClick={() => (setEntries([]), setPending(null), setImportNote(''), setTable(name))}
              >
                {name}
              </button>
            </li>
          ))}
          {tables.data?.tables.length === 0 ? <li className="muted">No table yet.</li> : null}
        </ul>
        {table ? (
          <div>
            <h3>{table}</h3>
            <ErrorNote error={loaded.error} />
            <table className="grid settings-table" aria-label="Entries">
              <thead>
                <tr>
                  <th>Key</th>
                  <th>Value</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {entries.map((entry, index) => (
                  <tr key={index}>
                    <td>
                      <input
                        value={entry.key}
                        readOnly={!editable}
                        onChange={(e) => setEntries(entries.map((x, at) => (at === index ? { ...x, key: e.target.value } : x)))}
                        aria-label={`Key ${index + 1}`}
                      />
                    </td>
                    <td>
                      <input
                        value={entry.value}
                        readOnly={!editable}
                        onChange={(e) => setEntries(entries.map((x, at) => (at === index ? { ...x, value: e.target.value } : x)))}
                        aria-label={`Value ${index + 1}`}
                      />
                    </td>
                    <td>
                      {editable ? (
                        <button
                          type="button"
                          className="link danger"
                          onClick={() => setEntries(entries.filter((_, at) => at !== index))}
                          aria-label={`Remove ${entry.key}`}
                        >
                          ✕
                        </button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {duplicate ? <div className="error-note">The key {JSON.stringify(duplicate.key)} appears twice; keys must be unique.</div> : null}
            <div className="button-row">
              {editable ? (
                <>
                  <button type="button" onClick={() => setEntries([...entries, { key: '', value: '' }])}>
                    Add entry
                  </button>
                  <button type="button" className="primary" disabled={save.busy || duplicate !== undefined} onClick={() => void saveTable()}>
                    Save table
                  </button>
                  <label className="inline">
                    Import
                    <input
                      type="file"
                      accept=".json,.csv,text/csv,application/json"
                      aria-label="Import entries"
                      onChange={(e) => {
                        const file = e.target.files?.[0];
                        if (!file) return;
                        // Reading and parsing fail into fileError, so the promise never rejects.
                        void (async () => {
                          try {
                            const imported = parseLookupFile(await file.text());
                            setFileError('');
                            setImportNote('');
                            // Never over a table's entries without asking.
                            if (filled.length === 0) importInto('replace', file.name, imported);
                            else setPending({ file: file.name, entries: imported });
                          } catch (error) {
                            setFileError(`${file.name}: ${(error as Error).message}`);
                          }
                          // The same file may be chosen again after a cancel.
                          e.target.value = '';
                        })();
                      }}
                    />
                  </label>
                  <button
                    type="button"
                    className="danger"
                    onClick={() =>
                      window.confirm(`Delete the table ${table}?`) &&
                      void save.run(async () => (await api.call(dtlRoutes.deleteLookup, { params: { name: table } }), setTable(''), tables.reload()))
                    }
                  >
                    Delete table
                  </button>
                </>
              ) : null}
              <a
                className="button"
                download={`${table}.json`}
                href={`data:application/json;charset=utf-8,${encodeURIComponent(JSON.stringify(Object.fromEntries(entries.map((e) => [e.key, e.value])), null, 2))}`}
              >
                Export JSON
              </a>
            </div>
            {pending ? (
              <div className="import-choice" role="dialog" aria-label="Import choice">
                <p>
                  {pending.file} has {pending.entries.length} entries; {table} has {filled.length}
                  {overlap > 0 ? `, ${overlap} of them with a key the file also has` : ''}. How should the file go into the table?
                </p>
                <div className="button-row">
                  <button type="button" className="primary" onClick={() => importInto('merge', pending.file, pending.entries)}>
                    Merge into {table}
                  </button>
                  <button type="button" className="danger" onClick={() => importInto('replace', pending.file, pending.entries)}>
                    Replace all {filled.length} entries
                  </button>
                  <button type="button" onClick={() => setPending(null)}>
                    Cancel import
                  </button>
                </div>
                <p className="muted">Merge keeps the table's other entries and takes the file's value for a key in both.</p>
              </div>
            ) : null}
            {importNote ? (
              <div className="notice" role="status">
                {importNote}
              </div>
            ) : null}
            <ErrorNote error={fileError || save.error} />
          </div>
        ) : (
          <p className="muted">Select a table.</p>
        )}
      </div>
    </Panel>
  );
}
