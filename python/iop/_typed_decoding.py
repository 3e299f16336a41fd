"""Decoded JSON made into the classes and types that declare it: a message class's instance from
its JSON, a dataclass from a dict, and a value coerced to its annotation (settings use that too).

Decoding follows the constructor's fields, coerces values to the annotated types when it can and
keeps the raw value when it cannot; unknown keys become attributes.
"""
import dataclasses
import datetime
import decimal
import enum
import inspect
import types
import typing
import uuid

from ._classnames import SerializationError
from ._json import loads
from ._message import is_pydantic_message

# Dataclasses (not pydantic models) decoded from JSON before, with their fields_of: what the
# class is does not change, and asking costs as much as decoding a small message.
_json_dataclasses = {}


def from_json(cls, text):
    fields = _json_dataclasses.get(cls)
    if fields is None:
        if is_pydantic_message(cls):
            return cls.model_validate_json(text)
        if dataclasses.is_dataclass(cls):
            fields = _json_dataclasses[cls] = fields_of(cls)
    data = loads(text)
    if not isinstance(data, dict):
        raise SerializationError(f'The JSON of a {cls.__module__}.{cls.__name__} must be an object')
    if fields is not None:
        return dataclass_from_fields(cls, fields, data)
    instance = cls.__new__(cls)
    instance.__dict__.update(data)
    return instance


def dataclass_from_dict(cls, data):
    return dataclass_from_fields(cls, fields_of(cls), data)


def dataclass_from_fields(cls, fields, data, instance=None):
    """A `cls` built from `data`; or, given `instance` (a stand-in being decoded), `instance` filled in."""
    init_fields, known = fields
    arguments = {}
    missing = []
    for name, hint, required in init_fields:
        if name in data:
            value = data[name]
            arguments[name] = value if type(value) is hint else coerce(value, hint)
        elif required:
            missing.append(name)
    if missing:
        raise SerializationError(f'{cls.__module__}.{cls.__name__} is missing the required field(s) {", ".join(missing)}')
    if instance is None:
        instance = cls(**arguments)
    else:
        cls.__init__(instance, **arguments)
    if len(arguments) != len(data):  # else every key was an argument
        for key, value in data.items():
            if key not in known:
                setattr(instance, key, value)
    return instance


# Per class: (init fields as (name, type hint, required), every field name). Resolving type hints
# costs more than decoding a small message, so it is done once per class.
_field_cache = {}


def fields_of(cls):
    cached = _field_cache.get(cls)
    if cached is None:
        hints = _type_hints(cls)
        fields = dataclasses.fields(cls)
        init_fields = tuple(
            (f.name, hints.get(f.name, f.type), f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
            for f in fields if f.init
        )
        cached = (init_fields, frozenset(f.name for f in fields))
        _field_cache[cls] = cached
    return cached


def _type_hints(cls):
    try:
        return typing.get_type_hints(cls)
    except Exception:  # unresolvable forward references: fall back to the raw annotations
        return {}


_SCALARS = {
    int: lambda v: int(v) if not isinstance(v, bool) and (isinstance(v, str) or float(v) == int(v)) else _fail(),
    float: lambda v: float(v) if not isinstance(v, bool) else _fail(),
    bool: lambda v: _to_bool(v),
    decimal.Decimal: lambda v: decimal.Decimal(str(v)),
    uuid.UUID: lambda v: uuid.UUID(str(v)),
    bytes: lambda v: v.encode('utf-8') if isinstance(v, str) else _fail(),
    datetime.datetime: lambda v: datetime.datetime.fromisoformat(v.replace('Z', '+00:00')),
    datetime.date: lambda v: datetime.date.fromisoformat(v),
    datetime.time: lambda v: datetime.time.fromisoformat(v),
}


def _fail():
    raise ValueError('no coercion')


def _to_bool(value):
    if isinstance(value, bool):
        return value
    if value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.lower() in ('true', 'false', '1', '0', 'yes', 'no'):
        return value.lower() in ('true', '1', 'yes')
    return _fail()


def coerce(value, annotation):
    """Best effort: the value converted to `annotation`, or the value itself when it does not fit."""
    try:
        return _coerce(value, annotation)
    except Exception:
        return value


def _coerce(value, annotation):
    if type(value) is annotation:  # the common case: nothing to convert
        return value
    if annotation is None or annotation is typing.Any or isinstance(annotation, (str, typing.ForwardRef)):
        return value
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Union or (hasattr(types, 'UnionType') and origin is types.UnionType):
        if value is None:
            return None
        options = [option for option in args if option is not type(None)]
        for option in options:
            if inspect.isclass(option) and isinstance(value, option):
                return value
        for option in options:
            try:
                return _coerce(value, option)
            except Exception:
                continue
        return value
    if value is None:
        return None
    if origin in (list, set, tuple, frozenset) and isinstance(value, list):
        item = args[0] if args else None
        return origin(coerce(v, item) for v in value) if origin is not list else [coerce(v, item) for v in value]
    if origin is dict and isinstance(value, dict):
        item = args[1] if len(args) == 2 else None
        return {k: coerce(v, item) for k, v in value.items()}
    if not inspect.isclass(annotation):
        return value
    if dataclasses.is_dataclass(annotation) and isinstance(value, dict):
        return dataclass_from_dict(annotation, value)
    if is_pydantic_message(annotation) and isinstance(value, dict):
        return annotation.model_validate(value)
    if issubclass(annotation, enum.Enum):
        return annotation(value)
    if isinstance(value, annotation) and not (annotation is int and isinstance(value, bool)):
        return value
    for scalar, convert in _SCALARS.items():
        if annotation is scalar:
            return convert(value)
    return value
