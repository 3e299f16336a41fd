/** The DTL transforms of the namespace, and the form that starts a new one from two doc types. */
import { useState, type FormEvent } from 'react';
import { dtlRoutes } from '../../../src/client/routes.ts';
import { ErrorNote, Panel, formatTime, useLoad } from '../components/common.tsx';
import { href, navigate } from '../router.ts';
import { useSession } from '../session.tsx';

export function DtlList() {
  const { api, can } = useSession();
  const transforms = useLoad(() => api.call(dtlRoutes.listTransforms), [api]);
  const schemas = useLoad(() => api.call(dtlRoutes.listSchemas), [api]);
  const [name, setName] = useState('');
  const [sourceDocType, setSource] = useState('');
  const [targetDocType, setTarget] = useState('');
  const nameError = name && !/^[A-Za-z%][\w.%]*$/.test(name) ? 'A transform name is a class name: letters, digits, dots (e.g. Demo.OrderToShipment).' : '';

  function create(event: FormEvent) {
    event.preventDefault();
    navigate(href('dtl', 'edit', name, { source: sourceDocType, target: targetDocType }));
  }

  return (
    <>
      <Panel title="Data transformations">
        <ErrorNote error={transforms.error} />
        <table className="grid" aria-label="Transforms">
          <thead>
            <tr>
              <th>Name</th>
              <th>Source</th>
              <th>Target</th>
              <th>Version</th>
              <th>Saved (UTC)</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {transforms.data?.transforms.length === 0 ? (
              <tr>
                <td colSpan={6} className="muted">
                  No transform yet.
                </td>
              </tr>
            ) : null}
            {transforms.data?.transforms.map((t) => (
              <tr key={t.name}>
                <td>
                  <a href={href('dtl', 'edit', t.name)}>{t.name}</a>
                </td>
                <td>{t.sourceDocType || t.sourceClass}</td>
                <td>{t.targetDocType || t.targetClass}</td>
                <td>{t.version}</td>
                <td>{formatTime(t.updatedAt, false)}</td>
                <td className="row-actions">
                  <a href={href('dtl', 'edit', t.name)}>Edit</a>
                  <a href={href('dtl', 'test', t.name)}>Test</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Panel>
      {can('operator') ? (
        <Panel title="New transform">
          <ErrorNote error={schemas.error} />
          <form className="filters" onSubmit={create} aria-label="New transform">
            <label>
              Name
              <input value={name} onChange={(e) => setName(e.target.value)} placeholder="Demo.OrderToShipment" aria-invalid={nameError !== ''} required />
            </label>
            <label>
              Source doc type
              <select value={sourceDocType} onChange={(e) => setSource(e.target.value)} aria-label="Source doc type">
                <option value="">(none)</option>
                {schemas.data?.schemas.map((schema) => (
                  <option key={schema.name}>{schema.name}</option>
                ))}
              </select>
            </label>
            <label>
              Target doc type
              <select value={targetDocType} onChange={(e) => setTarget(e.target.value)} aria-label="Target doc type">
                <option value="">(none)</option>
                {schemas.data?.schemas.map((schema) => (
                  <option key={schema.name}>{schema.name}</option>
                ))}
              </select>
            </label>
            <button type="submit" className="primary" disabled={!name || nameError !== ''}>
              Create
            </button>
          </form>
          {nameError ? <div className="error-note">{nameError}</div> : null}
        </Panel>
      ) : null}
    </>
  );
}
