/**
 * The few IRIS class methods transforms call through `##class(…)` or `$SYSTEM` that Conveyor
 * answers itself: the function-set classes, `Ens.Util.Time`, and Base64 from `%SYSTEM.Encryption`.
 * Any other class goes to the host's `classMethod` hook.
 */
import { ObjectScriptError } from './context.ts';
import { FUNCTION_SET, type FunctionDef } from './functions.ts';
import { toStr } from './values.ts';

const base64: Record<string, FunctionDef> = {
  Base64Encode: {
    min: 1,
    max: 2,
    call: (_c, [v]) => {
      const text = toStr(v);
      // Like IRIS, the input is a binary string: characters above \xFF cannot be encoded.
      if (/[^\x00-\xFF]/.test(text))
        throw new ObjectScriptError('ILLEGAL VALUE', 'Base64Encode needs a binary string (characters up to \\xFF); convert it to UTF-8 first');
      return btoa(text);
    },
  },
  Base64Decode: {
    min: 1,
    max: 1,
    call: (_c, [v]) => {
      try {
        return atob(toStr(v));
      } catch {
        throw new ObjectScriptError('ILLEGAL VALUE', 'Base64Decode: the text is not Base64');
      }
    },
  },
};

const CLASSES: Record<string, Record<string, FunctionDef>> = {
  'Ens.Util.FunctionSet': FUNCTION_SET,
  'Ens.Rule.FunctionSet': FUNCTION_SET,
  'Ens.Util.Time': { ConvertDateTime: FUNCTION_SET.ConvertDateTime! },
  '%SYSTEM.Encryption': base64,
};

/** True for the classes Conveyor answers itself (whatever the method). */
export function isBuiltinClass(className: string): boolean {
  return Object.hasOwn(CLASSES, className);
}

export function builtinClassMethod(className: string, method: string): FunctionDef | undefined {
  const cls = CLASSES[className];
  return cls && Object.hasOwn(cls, method) ? cls[method] : undefined;
}
