"""Component settings: the ones a class declares (migration, portal) and the values an item gives it (runtime)."""
import inspect
import typing

from ._typed_decoding import coerce
from .components.settings import Setting

# Public class members that are machinery, not settings (IoP's exclusion list).
EXCLUDED = frozenset({
    'INFO_URL', 'ICON_URL', 'PERSISTENT_PROPERTY_LIST', 'log_to_console', 'logger', 'iris_handle', 'DISPATCH',
    'adapter', 'Adapter', 'buffer', 'BusinessHost', 'business_host', 'business_host_python',
})

# IoP's IRIS datatypes of Python types, and the Python type name Conveyor's engine keeps beside them.
_DATATYPE_OF_NAME = {
    'int': 'Integer', 'integer': 'Integer', 'float': 'Numeric', 'complex': 'Numeric', 'numeric': 'Numeric',
    'decimal': 'Numeric', 'bool': 'Boolean', 'boolean': 'Boolean', 'str': 'String', 'string': 'String',
}
_PYTHON_TYPE_OF_DATATYPE = {'Integer': 'int', 'Numeric': 'float', 'Boolean': 'bool'}
_MISSING = object()


class SettingError(Exception):
    pass


def iris_data_type(source):
    """IoP's datatype of an annotation, a type or a type name; None when it says nothing."""
    if source is None or source is _MISSING or source is inspect.Parameter.empty:
        return None
    source, _ = _unwrap(source)
    if isinstance(source, str):
        return _DATATYPE_OF_NAME.get(source.strip().lower(), source.strip() or None)
    if source is bool:
        return 'Boolean'
    if isinstance(source, type):
        if issubclass(source, bool):
            return 'Boolean'
        if issubclass(source, int):
            return 'Integer'
        if issubclass(source, (float, complex)):
            return 'Numeric'
        return 'String'
    if source in (typing.Any,) or typing.get_origin(source) is not None:
        return 'String'
    return None


def _unwrap(annotation):
    """(type, Setting or None) of `Annotated[T, Setting(...)]`, `Optional[T]` or a plain annotation."""
    found = None
    for _ in range(5):
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            args = typing.get_args(annotation)
            found = next((meta for meta in args[1:] if isinstance(meta, Setting)), found)
            annotation = args[0]
            continue
        if origin is typing.Union or type(annotation).__name__ == 'UnionType':
            args = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
            if len(args) == 1:
                annotation = args[0]
                continue
        break
    return annotation, found


def _annotations(cls):
    """Annotations of the class and its bases (Annotated extras kept); unresolvable ones as written."""
    merged = {}
    for klass in reversed(cls.__mro__):
        raw = klass.__dict__.get('__annotations__', {})
        if not raw:
            continue
        try:
            resolved = typing.get_type_hints(klass, include_extras=True)
        except Exception:
            resolved = {}
        for name, annotation in raw.items():
            merged[name] = resolved.get(name, annotation)
    return merged


def _is_setting_member(name, value):
    if name.startswith('_') or name in EXCLUDED:
        return False
    if isinstance(value, Setting):
        return True
    return not (callable(value) or isinstance(value, (staticmethod, classmethod)) or inspect.isclass(value))


def setting_rows(cls):
    """IoP's settings metadata of a component class: rows `[name, datatype, default, required, category,
    description, control]` (what `_get_properties()` answers). Public non-callable members, declared
    Settings and annotation-only names, minus the exclusion list and `exclude=True` ones."""
    try:
        return [row for row, _ in _rows_with_sources(cls)]
    except Exception as error:
        raise RuntimeError(f'Failed to build settings metadata for {cls.__module__}.{cls.__qualname__}') from error


def _rows_with_sources(cls):
    annotations = _annotations(cls)
    members = {}
    for name in dir(cls):
        try:
            members[name] = inspect.getattr_static(cls, name)
        except AttributeError:
            continue
    names = [name for name, value in members.items() if _is_setting_member(name, value)]
    for name in annotations:
        if name in names or name.startswith('_') or name in EXCLUDED:
            continue
        if name in members and not _is_setting_member(name, members[name]):
            continue
        names.append(name)
    rows = []
    for name in names:
        present = name in members
        raw = members.get(name, _MISSING)
        annotated_type, annotated_setting = _unwrap(annotations.get(name, _MISSING))
        declared = raw if isinstance(raw, Setting) else annotated_setting
        if declared is not None and declared.exclude:
            continue
        required = declared.required if declared else False
        category = (declared.category or '') if declared else ''
        description = declared.description if declared else ''
        control = declared.control if declared else ''
        if isinstance(raw, Setting):
            python_value = raw.default if raw.has_default else None
        elif not present:
            python_value = annotated_setting.default if annotated_setting is not None and annotated_setting.has_default else None
        else:
            python_value = raw
        value = python_value
        if isinstance(value, property) or value is None:
            value = ''
        if declared is not None and declared.iris_type:
            data_type = declared.iris_type
        else:
            data_type = iris_data_type(declared.data_type if declared is not None and declared.data_type else annotated_type)
            if data_type is None:
                data_type = iris_data_type(type(value)) or 'String'
        info = getattr(cls, f'{name}_info', None)
        if callable(info):
            meta = getattr(info, '__annotations__', {}).get('return')
            if isinstance(meta, dict):
                if meta.get('ExcludeFromSettings'):
                    continue
                required = bool(meta.get('IsRequired', required))
                category = _text(meta.get('Category', category))
                description = _text(meta.get('Description', description))
                control = _text(meta.get('Control', meta.get('EditorContext', control)))
                if meta.get('DataType') not in (None, ''):
                    data_type = iris_data_type(meta['DataType']) or str(meta['DataType'])
            default = _call_info(cls, info)
            if default is not None:
                value = python_value = default
        rows.append(([name, data_type, value, bool(required), _text(category), _text(description), _text(control)], python_value))
    return rows


def _call_info(cls, info):
    try:
        return info()
    except TypeError:
        return info(cls.__new__(cls))


def _text(value):
    if value is None:
        return ''
    return str(getattr(value, 'value', value))


def declared_settings(cls):
    """The settings a class declares, as Conveyor stores them: `{name, type, defaultValue, description}`
    (type the Python name the engine converts values with, defaultValue text or None) plus IoP 4's
    metadata `dataType`, `category`, `required`, `control` and `isTarget` for the portal's form."""
    settings = []
    for (name, data_type, value, required, category, description, control), python_value in _rows_with_sources(cls):
        settings.append({
            'name': name,
            'type': _PYTHON_TYPE_OF_DATATYPE.get(data_type, 'str'),
            'defaultValue': None if python_value is None or isinstance(python_value, property) else _render(value),
            'description': description,
            'dataType': data_type,
            'category': category,
            'required': required,
            'control': control,
            'isTarget': data_type == 'Ens.DataType.ConfigName',
        })
    return settings


def _render(value):
    if isinstance(value, bool):
        return '1' if value else '0'
    return str(value)


def apply_settings(instance, values, warn):
    """Applies an item's settings (strings) to an instance, before on_init.

    `%settings` holds `key=value` lines set as strings. Every other non-`%` setting with a non-empty
    value is converted to the type the class gives it (annotation, else the type of its default)
    and set; an empty value leaves the class default alone, so a `None` default stays None.
    """
    cls = type(instance)
    for line in values.get('%settings', '').replace('\r', '').split('\n'):
        key, sep, value = line.partition('=')
        key = key.strip()
        if not sep or not key:
            continue
        try:
            setattr(instance, key, value)
        except Exception as error:
            warn(f'Cannot apply %settings line {key!r}: {error}')
    # `name: Annotated[T, Setting(default)]` declares no class attribute: IRIS would inject the default.
    for name, annotation in _annotations(cls).items():
        _, declared = _unwrap(annotation)
        if declared is not None and declared.has_default and name not in instance.__dict__ and not hasattr(cls, name):
            instance.__dict__[name] = declared.default
    hints = _class_hints(cls)
    for key, value in values.items():
        if key.startswith('%') or value is None or value == '':
            continue
        try:
            setattr(instance, key, typed_value(cls, hints, key, value))
        except Exception as error:
            warn(f'Cannot apply setting {key!r}={value!r}: {error}')


def typed_value(cls, hints, key, text):
    target, _ = _unwrap(hints[key]) if key in hints else (None, None)
    declared = inspect.getattr_static(cls, key, None)
    if isinstance(declared, Setting):
        if declared.iris_type:
            target = {'Integer': int, 'Numeric': float, 'Boolean': bool}.get(declared.iris_type, str)
        elif declared.data_type is not None:
            target = _unwrap(declared.data_type)[0]
        elif target is None and declared.has_default and declared.default is not None:
            target = type(declared.default)
        if isinstance(target, str):
            target = {'Integer': int, 'Numeric': float, 'Boolean': bool}.get(iris_data_type(target), str)
    elif target is None:
        target = type(declared) if declared is not None and not callable(declared) else None
    if target is None or target is str:
        return text
    if target is bool:
        lowered = text.strip().lower()
        if lowered in ('1', 'true', 'yes', 'on'):
            return True
        if lowered in ('0', 'false', 'no', 'off'):
            return False
        raise SettingError(f'{text!r} is not a boolean')
    if target is int:
        return int(text.strip())
    if target is float:
        return float(text.strip())
    return coerce(text, target)


def _class_hints(cls):
    try:
        return typing.get_type_hints(cls, include_extras=True)
    except Exception:  # unresolvable annotations: fall back to the default values' types
        return {}
