/**
 * Test a component: pick an item of the running production, a message class (registered schemas
 * are offered) and a JSON body; send; see the reply, its time and the trace of the call.
 */
import { useMemo, useState, type FormEvent } from 'react';
import { dtlRoutes, portalRoutes, type ReplyOf } from '../../../src/client/routes.ts';
import { ErrorNote, Panel, prettyJson, useAction, useLoad } from '../components/common.tsx';
import { Trace } from './Trace.tsx';
import { useSession } from '../session.tsx';

type TestRunReply = ReplyOf<typeof portalRoutes.testRun>;

/** The body as JSON, or an error naming where it fails (shown as you type). */
export function checkJson(text: string): string {
  if (text.trim() === '') return '';
  try {
    JSON.parse(text);
    return '';
  } catch (error) {
    return `Not valid JSON: ${(error as Error).message}`;
  }
}

export function TestComponent() {
  const { api, can } = useSession();
  const items = useLoad(() => api.call(portalRoutes.items), [api]);
  const schemas = useLoad(() => api.call(dtlRoutes.listSchemas).catch(() => ({ schemas: [] })), [api]);
  const [target, setTarget] = useState('');
  const [classname, setClassname] = useState('');
  const [body, setBody] = useState('{}');
  const [restart, setRestart] = useState(false);
  const [reply, setReply] = useState<TestRunReply | null>(null);
  const send = useAction();
  const bodyError = useMemo(() => checkJson(body), [body]);
  const running = items.data?.running ?? false;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setReply(null);
    await send.run(async () =>
      setReply(
        await api.call(portalRoutes.testRun, { body: { target, ...(classname ? { classname } : {}), body: body.trim() ? JSON.parse(body) : {}, restart } }),
      ),
    );
  }

  return (
    <>
      <Panel title="Test a component">
        <ErrorNote error={items.error} />
        {items.data && !running ? <div className="notice">No production is running in this namespace: start one to test its items.</div> : null}
        <form onSubmit={(event) => void submit(event)} className="test-form" aria-label="Test message">
          <label>
            Target item
            <select value={target} onChange={(e) => setTarget(e.target.value)} required aria-label="Target item">
              <option value="">Choose…</option>
              {items.data?.items.map((item) => (
                <option key={item.name} value={item.name}>
                  {item.name} ({item.kind})
                </option>
              ))}
            </select>
          </label>
          <label>
            Message class
            <input
              value={classname}
              onChange={(e) => setClassname(e.target.value)}
              list="test-classes"
              placeholder="module.Class (empty: Ens.Request)"
              aria-label="Message class"
            />
            <datalist id="test-classes">
              {schemas.data?.schemas.map((schema) => (
                <option key={schema.name} value={schema.name} />
              ))}
            </datalist>
          </label>
          <label className="inline">
            <input type="checkbox" checked={restart} onChange={(e) => setRestart(e.target.checked)} /> Restart the item first
          </label>
          <label className="wide">
            Body (JSON)
            <textarea rows={10} value={body} onChange={(e) => setBody(e.target.value)} aria-label="Body" aria-invalid={bodyError !== ''} spellCheck={false} />
          </label>
          {bodyError ? <div className="error-note wide">{bodyError}</div> : null}
          <div className="wide button-row">
            <button type="submit" className="primary" disabled={!can('operator') || !target || bodyError !== '' || send.busy}>
              {send.busy ? 'Sending…' : 'Send'}
            </button>
            {!can('operator') ? <span className="muted">Sending needs the operator role.</span> : null}
          </div>
        </form>
        <ErrorNote error={send.error} />
        {reply ? (
          <div className="test-reply" aria-label="Reply" role="region">
            <h3>
              Reply {reply.classname ? <code>{reply.classname}</code> : <span className="muted">(none)</span>} in {reply.duration_ms} ms
            </h3>
            <pre className="code">{prettyJson(reply.body) || '(empty)'}</pre>
            {reply.truncated ? <p className="muted">The reply was cut at 1,000,000 characters.</p> : null}
          </div>
        ) : null}
      </Panel>
      {reply ? <Trace key={reply.session_id} session={reply.session_id} /> : null}
    </>
  );
}
