/** Registered component classes ("class bindings") and the settings they declare. */

export type ComponentKind = 'service' | 'process' | 'operation' | 'inbound_adapter' | 'outbound_adapter';

export interface DeclaredSetting {
  name: string;
  /** Python type name when known (`str`, `int`, `bool`, `float`), else `str`. */
  type: string;
  /** The class default rendered as text, or null for `None` / no default. */
  defaultValue: string | null;
  description: string;
  /** IoP 4 `setting()` metadata, when the class declares it: IRIS datatype, category, required, editor control, target(). */
  dataType?: string;
  category?: string;
  required?: boolean;
  control?: string;
  isTarget?: boolean;
}

export interface ClassBinding {
  /** The registered name (IoP's proxy class name, e.g. `Python.MyBo`), unique in the namespace. */
  name: string;
  kind: ComponentKind;
  runtime: 'python' | 'builtin';
  /** Python module and class (null for built-ins). */
  module: string | null;
  className: string | null;
  /** Folders put in front of the import path. */
  classpaths: string[];
  settings: DeclaredSetting[];
  /** For services and operations: the adapter class name, when one is declared. */
  adapterType: string | null;
  updatedAt: number;
}
