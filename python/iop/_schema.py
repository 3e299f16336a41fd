"""JSON Schemas of message classes, made with the standard library in the shape pydantic 2 gives
(title, type, properties, required, `$defs`), with one difference the spec asks for: a reference to
a nested object is wrapped in `allOf` (`{"allOf": [{"$ref": ...}], "default": null}`)."""
import dataclasses
import datetime
import decimal
import enum
import inspect
import types
import typing
import uuid

from ._message import Message, is_pydantic_message
from ._serialization import to_jsonable

_SCALARS = {
    str: {'type': 'string'},
    int: {'type': 'integer'},
    float: {'type': 'number'},
    bool: {'type': 'boolean'},
    bytes: {'type': 'string', 'format': 'binary'},
    decimal.Decimal: {'anyOf': [{'type': 'number'}, {'type': 'string'}]},
    datetime.datetime: {'type': 'string', 'format': 'date-time'},
    datetime.date: {'type': 'string', 'format': 'date'},
    datetime.time: {'type': 'string', 'format': 'time'},
    uuid.UUID: {'type': 'string', 'format': 'uuid'},
}


class SchemaError(Exception):
    pass


def message_schema(cls):
    if is_pydantic_message(cls):
        return cls.model_json_schema()
    if not (inspect.isclass(cls) and issubclass(cls, Message)):
        raise SchemaError('The class must be a subclass of _Message or _PydanticMessage')
    if not dataclasses.is_dataclass(cls):
        raise SchemaError(f'{cls.__module__}.{cls.__qualname__} must be a dataclass')
    defs = {}
    schema = _object_schema(cls, defs)
    return {'$defs': defs, **schema} if defs else schema


def _object_schema(cls, defs):
    try:
        hints = typing.get_type_hints(cls)
    except Exception as error:
        raise SchemaError(f'Cannot resolve the annotations of {cls.__module__}.{cls.__name__}: {error}') from error
    properties = {}
    required = []
    for field in dataclasses.fields(cls):
        schema = dict(_type_schema(hints.get(field.name, field.type), defs))
        if field.default is not dataclasses.MISSING:
            default = field.default
            schema['default'] = to_jsonable(default.value if isinstance(default, enum.Enum) else default)
        elif field.default_factory is dataclasses.MISSING:
            required.append(field.name)
        if '$ref' not in schema and 'allOf' not in schema:
            schema['title'] = field.name.title().replace('_', ' ')
        properties[field.name] = dict(sorted(schema.items()))
    result = {'properties': properties}
    if required:
        result['required'] = required
    result['title'] = cls.__name__
    result['type'] = 'object'
    return result


def _type_schema(annotation, defs):
    if annotation is None or annotation is type(None):
        return {'type': 'null'}
    if annotation is typing.Any or annotation is object:
        return {}
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Union or (hasattr(types, 'UnionType') and origin is types.UnionType):
        return {'anyOf': [_type_schema(arg, defs) for arg in args]}
    if origin is typing.Literal:
        return {'enum': list(args)}
    if origin in (list, set, frozenset, tuple) or annotation in (list, set, frozenset, tuple):
        items = _type_schema(args[0], defs) if args else {}
        return {'items': items, 'type': 'array'}
    if origin is dict or annotation is dict:
        if len(args) == 2 and args[1] is not typing.Any:
            return {'additionalProperties': _type_schema(args[1], defs), 'type': 'object'}
        return {'type': 'object'}
    if not inspect.isclass(annotation):
        return {}
    if issubclass(annotation, enum.Enum):
        defs.setdefault(annotation.__name__, _enum_schema(annotation))
        return {'$ref': f'#/$defs/{annotation.__name__}'}
    if dataclasses.is_dataclass(annotation):
        if annotation.__name__ not in defs:
            defs[annotation.__name__] = {}  # reserve the name first: a class may refer to itself
            defs[annotation.__name__] = _object_schema(annotation, defs)
        return {'allOf': [{'$ref': f'#/$defs/{annotation.__name__}'}]}
    for scalar, schema in _SCALARS.items():
        if issubclass(annotation, scalar) and not (scalar is int and annotation is bool):
            return dict(schema)
    return {}


def _enum_schema(cls):
    values = [member.value for member in cls]
    schema = {'enum': values, 'title': cls.__name__}
    if all(isinstance(v, str) for v in values):
        schema['type'] = 'string'
    elif all(isinstance(v, int) for v in values):
        schema['type'] = 'integer'
    return schema

