"""Component settings: the ones a class declares (migration) and the values an item gives it (runtime)."""
import inspect
import typing

from ._serialization import coerce

# Public class members that are machinery, not settings (IoP's exclusion list).
EXCLUDED = frozenset({
    'INFO_URL', 'ICON_URL', 'PERSISTENT_PROPERTY_LIST', 'log_to_console', 'logger', 'iris_handle', 'DISPATCH',
    'adapter', 'Adapter', 'buffer', 'BusinessHost', 'business_host', 'business_host_python',
})

_TYPE_NAMES = ((bool, 'bool'), (int, 'int'), (float, 'float'), (complex, 'float'))


class SettingError(Exception):
    pass


def declared_settings(cls):
    """`[{name, type, defaultValue, description}]` per IoP's rules: every public, non-callable class
    member (inherited ones too) outside the exclusion list; the type comes from the default value;
    an optional `<name>_info()` method may exclude it, describe it or change its default."""
    probe = cls.__new__(cls)
    settings = []
    for name in dir(cls):
        if name.startswith('_') or name in EXCLUDED:
            continue
        raw = inspect.getattr_static(cls, name)
        if isinstance(raw, (staticmethod, classmethod)) or inspect.isfunction(raw) or inspect.isclass(raw):
            continue
        value = None if isinstance(raw, property) else raw
        if callable(value):
            continue
        description = ''
        setting_type = None
        info = getattr(probe, f'{name}_info', None)
        if callable(info):
            meta = getattr(info, '__annotations__', {}).get('return')
            if isinstance(meta, dict):
                if meta.get('ExcludeFromSettings'):
                    continue
                description = str(meta.get('Description', ''))
                setting_type = meta.get('DataType')
            value = info()
        settings.append({
            'name': name,
            'type': setting_type or _type_name(value),
            'defaultValue': None if value is None else _render(value),
            'description': description,
        })
    return settings


def _type_name(value):
    for python_type, name in _TYPE_NAMES:
        if isinstance(value, python_type):
            return name
    return 'str'


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
    hints = _class_hints(cls)
    for key, value in values.items():
        if key.startswith('%') or value is None or value == '':
            continue
        try:
            setattr(instance, key, typed_value(cls, hints, key, value))
        except Exception as error:
            warn(f'Cannot apply setting {key!r}={value!r}: {error}')


def typed_value(cls, hints, key, text):
    target = hints.get(key)
    if target is None:
        default = inspect.getattr_static(cls, key, None)
        target = type(default) if default is not None and not callable(default) else None
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
        return typing.get_type_hints(cls)
    except Exception:  # unresolvable annotations: fall back to the default values' types
        return {}
