/**
 * Runs a transform on a source message pasted as JSON or as the spec's envelope
 * `<test><Message><json><![CDATA[…]]></json></Message></test>`; shows the target, status, errors and trace.
 */
import { useState } from 'react';
import { parseTestEnvelope } from '../../../src/dtl/index.ts';
import { dtlRoutes, type ReplyOf } from '../../../src/client/routes.ts';
import { ErrorNote, Panel, StatusBadge, useAction } from '../components/common.tsx';
import { useSession } from '../session.tsx';

type RunResult = ReplyOf<typeof dtlRoutes.runTransform>;

const example = '<test><Message><json><![CDATA[\n{}\n]]></json></Message></test>';

/** The source document of a pasted payload, or the positioned reason it cannot be read. */
export function readPayload(payload: string): { json: unknown; error: string } {
  try {
    return { json: parseTestEnvelope(payload, 'test message'), error: '' };
  } catch (error) {
    return { json: null, error: (error as Error).message };
  }
}

export function DtlTester({ name, source }: { name: string; source?: string }) {
  const { api } = useSession();
  const [payload, setPayload] = useState(example);
  const [result, setResult] = useState<RunResult | null>(null);
  const run = useAction();
  const read = readPayload(payload);

  return (
    <Panel title={`Test ${name}`}>
      <p className="muted">
        Paste the source message as JSON, or as the test envelope. {source !== undefined ? 'The document being edited is run, saved or not.' : ''}
      </p>
      <textarea
        className="payload"
        rows={8}
        value={payload}
        onChange={(e) => setPayload(e.target.value)}
        aria-label="Test payload"
        aria-invalid={read.error !== ''}
        spellCheck={false}
      />
      {read.error ? <div className="error-note">{read.error}</div> : null}
      <div className="button-row">
        <button
          type="button"
          className="primary"
          disabled={read.error !== '' || run.busy}
          onClick={() =>
            void run.run(async () =>
              setResult(await api.call(dtlRoutes.runTransform, { body: { ...(source !== undefined ? { source } : { name }), json: read.json } })),
            )
          }
        >
          Run
        </button>
      </div>
      <ErrorNote error={run.error} />
      {result ? (
        <div className="test-result" role="region" aria-label="Test result">
          <h3>
            Status <StatusBadge status={result.status} /> {result.targetClass ? <code>{result.targetClass}</code> : null}
          </h3>
          {result.errors.length ? (
            <ul className="errors" aria-label="Errors">
              {result.errors.map((error, index) => (
                <li key={index} className="error-text">
                  {error}
                </li>
              ))}
            </ul>
          ) : null}
          <pre className="code" aria-label="Target">
            {JSON.stringify(result.target, null, 2)}
          </pre>
          {result.trace.length ? (
            <>
              <h3>Trace</h3>
              <pre className="code">{result.trace.join('\n')}</pre>
            </>
          ) : null}
        </div>
      ) : null}
    </Panel>
  );
}
