/**
 * The portal's check of a setting value against what the class declares with IoP 4's `setting()`
 * (its IRIS datatype and `required`), before the definition is saved or its plan applied.
 */
export interface DeclaredSettingRule {
  dataType?: string;
  required?: boolean;
}

/** Why the value does not fit the declaration, or '' when it does. */
export function settingProblem(rule: DeclaredSettingRule | undefined, value: string): string {
  if (!rule) return '';
  const text = value.trim();
  if (text === '') return rule.required ? 'required' : '';
  switch (rule.dataType) {
    case 'Integer':
      return /^[+-]?\d+$/.test(text) ? '' : 'a whole number';
    case 'Numeric':
      return text !== '' && Number.isFinite(Number(text)) ? '' : 'a number';
    case 'Boolean':
      return /^(0|1|true|false)$/i.test(text) ? '' : '1, 0, true or false';
    default:
      return '';
  }
}
