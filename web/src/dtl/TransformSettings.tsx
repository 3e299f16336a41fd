/**
 * The transform's own settings beside its actions: its language (with the Python imports of a Python
 * transform) and its class parameters (dtl-reference §1.15), as controls that rewrite the document.
 */
import { PARAMETER_NAMES, type Language, type ParameterName, type TransformNode } from '../../../src/dtl/index.ts';
import { edit, setParameters } from './model.ts';

/** What each parameter does, as the DTL reference says it (the tooltip of its control). */
const PARAMETER_HELP: Record<ParameterName, string> = {
  IGNOREMISSINGSOURCE:
    'On: a direct copy from an absent source (and a subtransform of an absent source) is skipped. Off: it is an error ("property not found").',
  REPORTERRORS: 'On: action errors make the run fail and are returned. Off: they are traced (category xform) and the run succeeds.',
  TREATEMPTYREPEATINGFIELDASNULL: 'On: an empty repeating field is neither iterated by foreach nor copied.',
  GENERATEEMPTYSEGMENTS: 'On (with IGNOREMISSINGSOURCE): an absent source writes "" instead of nothing.',
};

const LANGUAGES: Array<{ value: Language; label: string }> = [
  { value: 'objectscript', label: 'ObjectScript' },
  { value: 'python', label: 'Python' },
];

export function TransformSettings({
  ast,
  name,
  readOnly,
  onChange,
}: {
  ast: TransformNode;
  /** The transform's name: the class a bare document becomes when a parameter is set. */
  name: string;
  readOnly: boolean;
  onChange(next: TransformNode): void;
}) {
  return (
    <div className="dtl-settings">
      <label>
        Language
        <select
          value={ast.language}
          disabled={readOnly}
          onChange={(e) => onChange(edit(ast, (draft) => void (draft.language = e.target.value as Language)))}
          aria-label="Language"
        >
          {LANGUAGES.map((language) => (
            <option key={language.value} value={language.value}>
              {language.label}
            </option>
          ))}
        </select>
      </label>
      {ast.language === 'python' || ast.pythonImports !== '' ? (
        <label className="python-imports">
          Python imports
          <textarea
            rows={2}
            value={ast.pythonImports}
            readOnly={readOnly}
            onChange={(e) => onChange(edit(ast, (draft) => void (draft.pythonImports = e.target.value)))}
            placeholder="from datetime import date"
            aria-label="Python imports"
            spellCheck={false}
          />
        </label>
      ) : null}
      <fieldset className="dtl-parameters" disabled={readOnly}>
        <legend
          title={
            ast.className === null
              ? `A bare <transform> has the parameters IRIS's editor gives a new class; setting one makes the document the class ${name}.`
              : undefined
          }
        >
          Parameters
        </legend>
        {PARAMETER_NAMES.map((parameter) => (
          <label key={parameter} className="inline parameter" title={PARAMETER_HELP[parameter]}>
            <input
              type="checkbox"
              checked={ast.parameters[parameter] !== 0}
              onChange={(e) => onChange(setParameters(ast, name, { ...ast.parameters, [parameter]: e.target.checked ? 1 : 0 }))}
            />
            {parameter}
          </label>
        ))}
      </fieldset>
    </div>
  );
}
