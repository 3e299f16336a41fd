/**
 * What an operator may do with one or several messages (docs/operations.md, Queue and message
 * controls): abort a queued request, discard one in error, resend (to its target or another),
 * and — for one message — edit its body and resend it. The buttons offered are those every given
 * message allows; abort and discard ask for a second click. Mounted by the message detail and list
 * (Messages.tsx) and by the Queues page for the suspended messages.
 */
import { useState } from 'react';
import { controlRoutes, portalRoutes, type ReplyOf } from '../../../src/client/routes.ts';
import { ErrorNote, prettyJson, useAction, useLoad } from './common.tsx';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';

type ControlState = ReplyOf<typeof controlRoutes.messageControls>;
type Action = ControlState['actions'][number];
type Outcome = { text: string; links: Array<{ id: number; label: string }> };

export function MessageActions({ ids, onDone }: { ids: number[]; onDone?: () => void }) {
  const { api, can } = useSession();
  const key = ids.join(',');
  const states = useLoad(() => Promise.all(ids.map((id) => api.call(controlRoutes.messageControls, { params: { id } }))), [api, key]);
  const queues = useLoad(() => api.call(controlRoutes.controlQueues), [api]);
  const action = useAction();
  const [confirming, setConfirming] = useState<'abort' | 'discard' | null>(null);
  const [target, setTarget] = useState('');
  const [editing, setEditing] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const list = states.data ?? [];
  const allowed = (wanted: Action) => ids.length > 0 && list.length === ids.length && list.every((state) => state.actions.includes(wanted));
  const count = ids.length === 1 ? `message ${ids[0]}` : `${ids.length} messages`;
  const finish = (result: Outcome) => {
    setOutcome(result);
    setConfirming(null);
    setEditing(false);
    states.reload();
    onDone?.();
  };
  const statusChange = (which: 'abort' | 'discard') =>
    void action.run(async () => {
      const route = which === 'abort' ? controlRoutes.abortMessages : controlRoutes.discardMessages;
      const { results } = await api.call(route, { body: { ids } });
      const done = results.filter((result) => result.done).length;
      const skipped = results.filter((result) => !result.done).map((result) => `${result.id} (${result.reason ?? 'not changed'})`);
      finish({
        text: `${which === 'abort' ? 'Aborted' : 'Discarded'} ${done} of ${results.length}${skipped.length ? `; left: ${skipped.join(', ')}` : ''}`,
        links: [],
      });
    });
  const resend = () =>
    void action.run(async () => {
      const { results } = await api.call(controlRoutes.resendMessages, { body: { ids, ...(target ? { target } : {}) } });
      finish({
        text: `Resent ${results.length}:`,
        links: results.map((result) => ({ id: result.resendId, label: `${result.id} → ${result.resendId} (${result.target})` })),
      });
    });
  const single = list.length === 1 ? list[0] : undefined;
  return (
    <section className="message-actions" aria-label="Message actions">
      <ErrorNote error={states.error || action.error} />
      {single ? <Links state={single} /> : null}
      {can('operator') && list.length > 0 ? (
        <div className="message-actions-bar">
          {allowed('abort') ? (
            <button type="button" disabled={action.busy} onClick={() => setConfirming('abort')}>
              Abort
            </button>
          ) : null}
          {allowed('discard') ? (
            <button type="button" disabled={action.busy} onClick={() => setConfirming('discard')}>
              Discard
            </button>
          ) : null}
          {allowed('resend') ? (
            <>
              <label>
                Resend to{' '}
                <select aria-label="Resend target" value={target} onChange={(event) => setTarget(event.target.value)}>
                  <option value="">its own target</option>
                  {queues.data?.items
                    .filter((item) => item.kind !== 'service')
                    .map((item) => (
                      <option key={item.name} value={item.name}>
                        {item.name}
                      </option>
                    ))}
                </select>
              </label>
              <button type="button" disabled={action.busy} onClick={resend}>
                Resend {count}
              </button>
            </>
          ) : null}
          {single && allowed('edit-resend') ? (
            <button type="button" disabled={action.busy} onClick={() => setEditing((open) => !open)}>
              Edit and resend
            </button>
          ) : null}
        </div>
      ) : null}
      {confirming ? (
        <div className="message-actions-confirm" role="group" aria-label="Confirm">
          {confirming === 'abort' ? `Take ${count} out of the queue? It will not be delivered.` : `Discard ${count}? It leaves the suspended list.`}{' '}
          <button type="button" disabled={action.busy} onClick={() => statusChange(confirming)}>
            Yes, {confirming}
          </button>
          <button type="button" onClick={() => setConfirming(null)}>
            Cancel
          </button>
        </div>
      ) : null}
      {editing && single ? <EditAndResend id={single.message.id} targets={queues.data?.items.map((item) => item.name) ?? []} onSent={finish} /> : null}
      {outcome ? (
        <p className="message-actions-outcome" role="status">
          {outcome.text}{' '}
          {outcome.links.map((link) => (
            <a key={link.id} href={href('messages', link.id)}>
              {link.label}
            </a>
          ))}
        </p>
      ) : null}
    </section>
  );
}

function Links({ state }: { state: ControlState }) {
  if (!state.suspended && !state.resentFrom && state.resends.length === 0) return null;
  return (
    <p className="message-links">
      {state.suspended ? <span className="badge badge-suspended">suspended</span> : null}
      {state.resentFrom ? (
        <>
          {' '}
          {state.resentFrom.edited ? 'Edited and resent' : 'Resent'} from{' '}
          <a href={href('messages', state.resentFrom.originalId)}>message {state.resentFrom.originalId}</a> by {state.resentFrom.user}.
        </>
      ) : null}
      {state.resends.length > 0 ? (
        <>
          {' '}
          Resent as{' '}
          {state.resends.map((link, index) => (
            <span key={link.resendId}>
              {index > 0 ? ', ' : ''}
              <a href={href('messages', link.resendId)}>message {link.resendId}</a> ({link.target}, by {link.user}
              {link.edited ? ', edited' : ''})
            </span>
          ))}
          .
        </>
      ) : null}
    </p>
  );
}

function EditAndResend({ id, targets, onSent }: { id: number; targets: string[]; onSent(outcome: Outcome): void }) {
  const { api } = useSession();
  const original = useLoad(() => api.call(portalRoutes.getMessage, { params: { id } }), [api, id]);
  const [text, setText] = useState<string | null>(null);
  const [classname, setClassname] = useState<string | null>(null);
  const [target, setTarget] = useState('');
  const send = useAction();
  if (!original.data) return <ErrorNote error={original.error} />;
  const body = text ?? (prettyJson(original.data.body.data) || '{}');
  const chosenClass = classname ?? original.data.body.classname;
  const submit = () =>
    void send.run(async () => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch (error) {
        throw new Error(`The body is not valid JSON: ${(error as Error).message}`);
      }
      const result = await api.call(controlRoutes.editAndResend, {
        params: { id },
        body: { body: parsed, classname: chosenClass, ...(target ? { target } : {}) },
      });
      onSent({ text: 'Edited and resent:', links: [{ id: result.resendId, label: `${result.id} → ${result.resendId} (${result.target})` }] });
    });
  return (
    <form
      className="edit-resend"
      aria-label="Edit and resend"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <label>
        Class <input aria-label="Message class" value={chosenClass} onChange={(event) => setClassname(event.target.value)} />
      </label>
      <label>
        Target{' '}
        <select aria-label="Edited message target" value={target} onChange={(event) => setTarget(event.target.value)}>
          <option value="">{original.data.target} (its own)</option>
          {targets
            .filter((name) => name !== original.data?.target)
            .map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
        </select>
      </label>
      <textarea aria-label="Message body" rows={8} value={body} onChange={(event) => setText(event.target.value)} />
      <ErrorNote error={send.error} />
      <button type="submit" disabled={send.busy}>
        Send the edited message
      </button>
    </form>
  );
}
