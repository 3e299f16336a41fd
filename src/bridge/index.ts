/** The Python worker bridge: the one door through which the engine runs Python. */
import type { ComponentFactory } from '../core/component.ts';
import { PythonComponent, type PythonComponentSpec } from './python-component.ts';
import { defaultInterpreter } from './sdk-path.ts';

export type { PythonComponentSpec } from './python-component.ts';
export type { ClassRef } from './protocol.ts';
export type { BridgeTimeouts } from './timeouts.ts';
export type { PythonFailure, UserFrame } from './failure.ts';
export { PythonComponent } from './python-component.ts';
export { PythonError, isPythonError, describeFailure } from './failure.ts';
export { defaultBridgeTimeouts, defaultDtlPythonTimeoutMs } from './timeouts.ts';
export { pythonSdkDir, defaultInterpreter } from './sdk-path.ts';
export { messageDecodeFailure, messageDecodeFailureIn, serializationErrorType } from './message-check.ts';

/** One factory per item: `create()` makes the instance of one job (one python3 child). */
export function pythonComponentFactory(spec: PythonComponentSpec): ComponentFactory {
  return {
    create: () => new PythonComponent(spec, spec.interpreter ?? defaultInterpreter()),
  };
}
