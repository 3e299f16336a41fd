/**
 * The rule class as a form: the `<ruleDefinition>` attributes (production, alias, context) and its
 * rule sets. When several sets are in effect at once, the first one is used, so their order matters.
 */
import { RuleSetForm } from './RuleSetForm.tsx';
import { NodeProblems, type RuleEditing } from './form-parts.tsx';
import { newRuleSet, type RuleDefinition } from './model.ts';

export function DefinitionForm({ definition, editing }: { definition: RuleDefinition; editing: RuleEditing }) {
  const field = (key: 'production' | 'alias' | 'context', label: string, placeholder: string) => (
    <label className={`rule-field rule-${key}`}>
      {label}
      <input
        value={definition[key]}
        onChange={(e) => editing.change((draft) => void (draft[key] = e.target.value))}
        placeholder={placeholder}
        aria-label={label}
      />
    </label>
  );
  return (
    <div className="rule-form" data-node="definition">
      <div className="rule-row">
        {field('production', 'Production', 'Demo.Production')}
        {field('alias', 'Alias', '(none)')}
        {field('context', 'Context', 'EnsLib.MsgRouter.RoutingEngine')}
      </div>
      <NodeProblems problems={editing.problems.get('definition')} />
      <ol className="rule-sets" aria-label="Rule sets">
        {definition.ruleSets.map((set, index) => (
          <RuleSetForm key={index} set={set} index={index} editing={editing} />
        ))}
      </ol>
      {editing.readOnly ? null : (
        <div className="button-row">
          <button type="button" onClick={() => editing.change((draft) => void draft.ruleSets.push(newRuleSet()))}>
            + rule set
          </button>
        </div>
      )}
    </div>
  );
}
