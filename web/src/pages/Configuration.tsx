/**
 * Production configuration: the diagram of its items with their state, the selected item's settings
 * (edited into the definition, applied to the running production with Update), enable/disable,
 * start/stop/restart one component, the export of the definition, and the change plan of the edits,
 * reviewed before it is applied (PlanReview). Edits are checked as they are made: a schedule by IRIS's
 * syntax (the server's own rule; Save stays off), an item's class against the namespace's registered
 * and built-in classes (the server's validation; a warning, since the package may be migrated later).
 */
import { useEffect, useState } from 'react';
import {
  componentRoutes,
  definitionRoutes,
  portalRoutes,
  specRoutes,
  type ExportItemJson,
  type ExportJson,
  type ExportSettingJson,
} from '../../../src/client/routes.ts';
import { scheduleProblem } from '../../../src/client/schedule-spec.ts';
import { ErrorNote, Panel, StatusBadge, useAction, useLoad } from '../components/common.tsx';
import { PlanReview } from '../components/PlanReview.tsx';
import { settingProblem } from '../components/setting-check.ts';
import { ProductionDiagram } from '../components/ProductionDiagram.tsx';
import { useSession } from '../session.tsx';

const componentActions = { start: componentRoutes.componentStart, stop: componentRoutes.componentStop, restart: componentRoutes.componentRestart };

/** How long the draft rests before its classes are checked again on the server. */
const classCheckDelayMs = 400;

export function Configuration({ production }: { production: string }) {
  const { api, can } = useSession();
  const items = useLoad(() => api.call(portalRoutes.items, { query: { production } }), [api, production], 3000);
  const stored = useLoad(() => api.call(portalRoutes.getDefinition, { query: { production } }), [api, production]);
  const classes = useLoad(() => api.call(portalRoutes.classes), [api]);
  const [draft, setDraft] = useState<ExportJson | null>(null);
  const [selected, setSelected] = useState('');
  const [saved, setSaved] = useState(false);
  /** What the server said about the last save (e.g. items whose class is not registered). */
  const [savedWarnings, setSavedWarnings] = useState<string[]>([]);
  /** Item name → why its class will not run, from the server's validation of the draft. */
  const [classWarnings, setClassWarnings] = useState<Map<string, string>>(new Map());
  const [showExport, setShowExport] = useState(false);
  const [newItem, setNewItem] = useState({ name: '', classname: '' });
  const save = useAction();
  const lifecycle = useAction();

  useEffect(() => {
    if (stored.data) setDraft(structuredClone(stored.data));
  }, [stored.data]);
  useEffect(() => {
    if (!selected && items.data?.items[0]) setSelected(items.data.items[0].name);
  }, [items.data, selected]);
  useEffect(() => {
    if (!draft) return;
    let current = true;
    const timer = setTimeout(() => {
      api
        .call(definitionRoutes.validate, { body: { definition: draft } })
        .then((report) => {
          if (!current) return;
          const unknown = report.issues.filter((issue) => issue.kind === 'class');
          setClassWarnings(new Map(unknown.map((issue) => [issue.path.replace(/^items\.(.*)\.class_name$/, '$1'), issue.message])));
        })
        // A draft the server refuses (a bad schedule) is marked where it is typed; its classes wait for the fix.
        .catch(() => undefined);
    }, classCheckDelayMs);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [api, draft]);

  const running = items.data?.running ?? false;
  const dirty = draft !== null && stored.data !== undefined && JSON.stringify(draft) !== JSON.stringify(stored.data);
  const item = draft?.items.find((candidate) => candidate.name === selected);
  const state = items.data?.items.find((candidate) => candidate.name === selected);
  const binding = classes.data?.classes.find((candidate) => candidate.name === item?.classname);

  // Host settings the class declares with IoP 4's setting(): their datatype and `required` are checked here.
  const declaredOf = (setting: ExportSettingJson) =>
    setting.target === 'Host' ? binding?.settings.find((declared) => declared.name === setting.name) : undefined;
  const problemOf = (setting: ExportSettingJson) => settingProblem(declaredOf(setting), setting.value);
  const scheduleError = item ? scheduleProblem(item.schedule) : '';
  // Any item's bad schedule keeps Save off, not only the selected one's: the server would refuse the whole definition.
  const badSchedules = draft?.items.filter((candidate) => scheduleProblem(candidate.schedule) !== '').map((candidate) => candidate.name) ?? [];
  const invalid = (item?.settings.some((setting) => problemOf(setting) !== '') ?? false) || badSchedules.length > 0;
  const classWarning = item ? classWarnings.get(item.name) : undefined;

  function patchItem(patch: Partial<ExportItemJson>) {
    if (!draft) return;
    setSaved(false);
    setDraft({ ...draft, items: draft.items.map((candidate) => (candidate.name === selected ? { ...candidate, ...patch } : candidate)) });
  }
  function patchSetting(index: number, patch: Partial<ExportSettingJson>) {
    if (!item) return;
    patchItem({ settings: item.settings.map((setting, at) => (at === index ? { ...setting, ...patch } : setting)) });
  }
  async function saveDraft() {
    if (!draft) return;
    let warnings: string[] = [];
    if (await save.run(async () => (warnings = (await api.call(portalRoutes.putDefinition, { body: { definition: draft } })).warnings))) {
      setSavedWarnings(warnings);
      setSaved(true);
      stored.reload();
    }
  }
  function addItem() {
    if (!draft) return;
    const item: ExportItemJson = {
      name: newItem.name,
      classname: newItem.classname,
      pool_size: 1,
      enabled: true,
      foreground: false,
      comment: '',
      log_trace_events: false,
      schedule: '',
      settings: [],
    };
    setDraft({ ...draft, items: [...draft.items, item] });
    setSelected(newItem.name);
    setNewItem({ name: '', classname: '' });
    setSaved(false);
  }
  const nameTaken = draft?.items.some((candidate) => candidate.name === newItem.name) ?? false;
  const component = (action: 'start' | 'stop' | 'restart') =>
    lifecycle.run(() => api.call(componentActions[action], { body: { component: selected } })).then(items.reload);

  return (
    <>
      <Panel
        title={
          <>
            {production} {items.data ? <StatusBadge status={running ? 'running' : 'stopped'} /> : null}
          </>
        }
        actions={
          <>
            {can('operator') && running ? (
              <button
                type="button"
                disabled={lifecycle.busy}
                onClick={() => void lifecycle.run(() => api.call(specRoutes.update, { body: {} })).then(() => (setSaved(false), items.reload()))}
              >
                Update
              </button>
            ) : null}
            <button type="button" onClick={() => setShowExport(!showExport)} aria-expanded={showExport}>
              {showExport ? 'Hide export' : 'Export'}
            </button>
          </>
        }
      >
        <ErrorNote error={items.error || stored.error || lifecycle.error} />
        {saved ? (
          <div className="notice">
            Saved to the definition. {running ? 'Press Update to apply it to the running production.' : 'It applies when the production starts.'}
            {savedWarnings.length > 0 ? (
              <ul className="warning-text" aria-label="Save warnings">
                {savedWarnings.map((warning) => (
                  <li key={warning}>Warning: {warning}</li>
                ))}
              </ul>
            ) : null}
          </div>
        ) : null}
        {showExport && stored.data ? (
          <div>
            <pre className="code" aria-label="Exported definition">
              {JSON.stringify(stored.data, null, 2)}
            </pre>
            <a
              className="button"
              download={`${production}.json`}
              href={`data:application/json;charset=utf-8,${encodeURIComponent(JSON.stringify(stored.data, null, 2))}`}
            >
              Download JSON
            </a>
          </div>
        ) : null}
        <div className="config-layout">
          <div>
            {items.data ? <ProductionDiagram items={items.data.items} selected={selected} onSelect={setSelected} /> : null}
            {can('admin') && draft ? (
              <form
                className="inline-form"
                aria-label="Add item"
                onSubmit={(e) => {
                  e.preventDefault();
                  addItem();
                }}
              >
                <label>
                  New item name
                  <input
                    value={newItem.name}
                    onChange={(e) => setNewItem({ ...newItem, name: e.target.value })}
                    aria-invalid={nameTaken}
                    aria-label="New item name"
                  />
                </label>
                <label>
                  Class
                  <input
                    value={newItem.classname}
                    onChange={(e) => setNewItem({ ...newItem, classname: e.target.value })}
                    list="item-classes"
                    aria-label="New item class"
                  />
                  <datalist id="item-classes">
                    {classes.data?.classes.map((binding) => (
                      <option key={binding.name} value={binding.name}>
                        {binding.kind}
                      </option>
                    ))}
                  </datalist>
                </label>
                <button type="submit" disabled={!newItem.name.trim() || !newItem.classname.trim() || nameTaken}>
                  Add item
                </button>
                {nameTaken ? <span className="error-text">An item named {newItem.name} exists.</span> : null}
              </form>
            ) : null}
          </div>
          <div aria-label="Item settings" role="region">
            {item ? (
              <>
                <h3>
                  {item.name} <span className="muted">{item.classname}</span>
                  {can('admin') ? (
                    <button
                      type="button"
                      className="link danger"
                      onClick={() => draft && (setDraft({ ...draft, items: draft.items.filter((candidate) => candidate.name !== item.name) }), setSelected(''))}
                    >
                      Remove item
                    </button>
                  ) : null}
                </h3>
                {classWarning ? (
                  <p className="warning-text" role="alert" aria-label="Class warning">
                    Warning: {classWarning} This item cannot start until the class is registered: migrate the package that defines it, or correct the class
                    name.
                  </p>
                ) : null}
                {!state ? <p className="muted">Not saved yet: Save, then Update, to run it.</p> : null}
                {state ? (
                  <p>
                    <StatusBadge status={item.enabled ? state.state : 'disabled'} /> queue {state.queued}, in progress {state.delivered}, jobs {state.jobs}
                    {state.error ? <span className="error-text"> — {state.error}</span> : null}
                  </p>
                ) : null}
                {can('operator') && running ? (
                  <div className="button-row">
                    <button type="button" disabled={lifecycle.busy} onClick={() => void component('start')}>
                      Start item
                    </button>
                    <button type="button" disabled={lifecycle.busy} onClick={() => void component('stop')}>
                      Stop item
                    </button>
                    <button type="button" disabled={lifecycle.busy} onClick={() => void component('restart')}>
                      Restart item
                    </button>
                  </div>
                ) : null}
                <fieldset disabled={!can('admin')} className="plain">
                  <div className="item-fields">
                    <label className="inline">
                      <input type="checkbox" checked={item.enabled} onChange={(e) => patchItem({ enabled: e.target.checked })} /> Enabled
                    </label>
                    <label>
                      Pool size
                      <input type="number" min={0} value={item.pool_size} onChange={(e) => patchItem({ pool_size: Number(e.target.value) })} />
                    </label>
                    <label>
                      Schedule
                      <input
                        value={item.schedule}
                        onChange={(e) => patchItem({ schedule: e.target.value })}
                        aria-label="Schedule"
                        aria-invalid={scheduleError !== ''}
                        placeholder="START:*-*-*T08:00:00,STOP:*-*-*T17:00:00"
                        title="Empty (always), @Name, or IRIS events START|STOP:YYYY-MM-DDThh:mm:ss (any part *) or WEEK-nn-0dThh:mm:ss"
                      />
                    </label>
                  </div>
                  {scheduleError ? <p className="error-text">Not an IRIS schedule: {scheduleError}.</p> : null}
                  <label>
                    Comment
                    <input value={item.comment} onChange={(e) => patchItem({ comment: e.target.value })} />
                  </label>
                  <table className="grid settings-table" aria-label="Settings">
                    <thead>
                      <tr>
                        <th>Target</th>
                        <th>Name</th>
                        <th>Value</th>
                        <th />
                      </tr>
                    </thead>
                    <tbody>
                      {item.settings.map((setting, index) => (
                        <tr key={index}>
                          <td>
                            <select
                              value={setting.target}
                              onChange={(e) => patchSetting(index, { target: e.target.value as ExportSettingJson['target'] })}
                              aria-label="Setting target"
                            >
                              <option>Host</option>
                              <option>Adapter</option>
                            </select>
                          </td>
                          <td>
                            <input value={setting.name} onChange={(e) => patchSetting(index, { name: e.target.value })} aria-label="Setting name" />
                          </td>
                          <td>
                            <input
                              value={setting.value}
                              onChange={(e) => patchSetting(index, { value: e.target.value })}
                              aria-label={`Value of ${setting.name}`}
                              aria-invalid={problemOf(setting) !== ''}
                              title={declaredOf(setting)?.description || undefined}
                            />
                            {problemOf(setting) ? <span className="error-text"> {problemOf(setting)}</span> : null}
                          </td>
                          <td>
                            <button
                              type="button"
                              className="link"
                              onClick={() => patchItem({ settings: item.settings.filter((_, at) => at !== index) })}
                              aria-label={`Remove ${setting.name}`}
                            >
                              ✕
                            </button>
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                  <div className="button-row">
                    <button type="button" onClick={() => patchItem({ settings: [...item.settings, { target: 'Host', name: '', value: '' }] })}>
                      Add setting
                    </button>
                    {binding?.settings
                      .filter((declared) => !item.settings.some((setting) => setting.name === declared.name))
                      .map((declared) => (
                        <button
                          key={declared.name}
                          type="button"
                          className="link"
                          title={[declared.category, declared.description].filter(Boolean).join(': ')}
                          onClick={() =>
                            patchItem({ settings: [...item.settings, { target: 'Host', name: declared.name, value: declared.defaultValue ?? '' }] })
                          }
                        >
                          + {declared.name}
                        </button>
                      ))}
                  </div>
                  <div className="button-row">
                    <button type="button" className="primary" disabled={!dirty || save.busy || invalid} onClick={() => void saveDraft()}>
                      Save
                    </button>
                    <button type="button" disabled={!dirty} onClick={() => stored.data && setDraft(structuredClone(stored.data))}>
                      Discard changes
                    </button>
                    {dirty ? <span className="muted">Unsaved changes</span> : null}
                  </div>
                  {badSchedules.some((name) => name !== item.name) ? (
                    <p className="error-text">Fix the schedule of {badSchedules.filter((name) => name !== item.name).join(', ')} to save.</p>
                  ) : null}
                  <ErrorNote error={save.error} />
                </fieldset>
                {draft ? <PlanReview draft={draft} production={production} onApplied={() => (setSaved(false), stored.reload(), items.reload())} /> : null}
              </>
            ) : (
              <p className="muted">Select an item in the diagram.</p>
            )}
          </div>
        </div>
      </Panel>
    </>
  );
}
