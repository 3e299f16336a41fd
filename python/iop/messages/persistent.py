"""PersistentMessage, Model and Field: IoP's native persistent messages, on Conveyor's message store.

IoP (through the iris-persistence package) turns a Model subclass into a generated IRIS persistent
class with one property per annotated field, and sends instances as native IRIS objects. Conveyor
stores every message body as JSON, so a PersistentMessage travels as a *native* body: classname the
IRIS class name it would have had, data its field values. The receiving worker maps that name back
to the Python class (the registry of imported classes, else IoP's reversible name encoding), so
handlers get the Python object and other consumers (DTL, the portal) see a plain native message.
"""
import dataclasses
import datetime
import decimal
import json
import re
import typing
import uuid

_MISSING = object()


class PersistentMessageError(RuntimeError):
    pass


class FieldInfo:
    """What `Field(...)` declares about one attribute of a Model."""

    def __init__(self, default=_MISSING, *, default_factory=None, required=False, max_length=None, min_length=None,
                 description='', index=False, unique=False, **options):
        if default is not _MISSING and default_factory is not None:
            raise TypeError('Field() takes a default or a default_factory, not both')
        self.default = default
        self.default_factory = default_factory
        self.required = bool(required)
        self.max_length = max_length
        self.min_length = min_length
        self.description = description
        self.index = bool(index)
        self.unique = bool(unique)
        self.options = options
        self.name = ''
        self.annotation = None

    def initial(self):
        if self.default_factory is not None:
            return self.default_factory()
        if self.default is _MISSING:
            return None
        return self.default

    def check(self, owner, value):
        label = f'{owner.__name__}.{self.name}'
        if value is None:
            if self.required:
                raise ValueError(f'{label} is required')
            return
        if self.max_length is not None and hasattr(value, '__len__') and len(value) > self.max_length:
            raise ValueError(f'{label} is longer than max_length={self.max_length}')
        if self.min_length is not None and hasattr(value, '__len__') and len(value) < self.min_length:
            raise ValueError(f'{label} is shorter than min_length={self.min_length}')

    def to_dict(self):
        return {
            'name': self.name, 'required': self.required, 'max_length': self.max_length, 'min_length': self.min_length,
            'description': self.description, 'index': self.index, 'unique': self.unique,
        }


def Field(default=_MISSING, **options):  # noqa: N802  (IoP's public spelling)
    return FieldInfo(default, **options)


class Model:
    """Fields are the annotated class attributes (a Field(...) value or a plain default).
    `class Address(Model, serial=True)` declares an embedded (serial) model."""

    __iop_fields__ = {}
    __iop_serial__ = False

    def __init_subclass__(cls, serial=False, **kwargs):
        super().__init_subclass__(**kwargs)
        fields = {}
        for base in reversed(cls.__mro__[1:]):
            fields.update(getattr(base, '__iop_fields__', {}))
        for name, annotation in cls.__dict__.get('__annotations__', {}).items():
            if name.startswith('_') or typing.get_origin(annotation) is typing.ClassVar:
                continue
            value = cls.__dict__.get(name, _MISSING)
            info = value if isinstance(value, FieldInfo) else FieldInfo(value)
            info.name = name
            info.annotation = annotation
            fields[name] = info
            if isinstance(value, FieldInfo):
                delattr(cls, name)
        cls.__iop_fields__ = fields
        cls.__iop_serial__ = bool(serial)
        if 'PersistentMessage' in globals() and _is_persistent_message_class(cls):  # not while defining the base
            _registry.add(cls)

    def __init__(self, **values):
        fields = type(self).__iop_fields__
        unknown = sorted(set(values) - set(fields))
        if unknown:
            raise TypeError(f'{type(self).__name__} has no field {", ".join(unknown)}')
        for name, info in fields.items():
            value = values[name] if name in values else info.initial()
            info.check(type(self), value)
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        info = type(self).__iop_fields__.get(name)
        if info is not None:
            info.check(type(self), value)
        object.__setattr__(self, name, value)

    def __eq__(self, other):
        return type(self) is type(other) and self.to_dict() == other.to_dict()

    def __repr__(self):
        values = ', '.join(f'{name}={getattr(self, name, None)!r}' for name in type(self).__iop_fields__)
        return f'{type(self).__name__}({values})'

    def to_dict(self):
        return {name: _jsonable(getattr(self, name, None)) for name in type(self).__iop_fields__}

    @classmethod
    def from_dict(cls, data):
        values = {}
        hints = _hints(cls)
        for name in cls.__iop_fields__:
            if name in data:
                values[name] = _typed(data[name], hints.get(name))
        instance = cls.__new__(cls)
        for name, info in cls.__iop_fields__.items():
            object.__setattr__(instance, name, values.get(name, info.initial()))
        for name, value in data.items():  # unknown properties are kept, as native objects keep them
            if name not in cls.__iop_fields__ and not name.startswith('_'):
                object.__setattr__(instance, name, value)
        return instance

    @classmethod
    def schema(cls):
        """The property list the IRIS class would get (name, type, field options)."""
        hints = _hints(cls)
        return [dict(info.to_dict(), type=_type_name(hints.get(name))) for name, info in cls.__iop_fields__.items()]

    def get_iris_id(self):
        return getattr(self, '_iris_id', None)


class PersistentMessage(Model):
    """A message stored as a native persistent class (one property per annotated field).

    Inner `class Meta:` may set `classname` (the IRIS class name), `superclasses` (default
    `Ens.MessageBody`), `mode` (`managed`, the default, or `extend`) and `auto_sync` (default True)."""


def _is_persistent_message_class(cls):
    return isinstance(cls, type) and issubclass(cls, PersistentMessage) and cls is not PersistentMessage and not cls.__iop_serial__


def is_persistent_message_class(cls):
    return _is_persistent_message_class(cls)


def is_persistent_message(value):
    return _is_persistent_message_class(type(value))


def get_python_classname(cls):
    return f'{cls.__module__}.{cls.__qualname__}'


def meta_of(cls):
    meta = getattr(cls, 'Meta', None)
    return {
        'classname': getattr(meta, 'classname', None),
        'superclasses': getattr(meta, 'superclasses', 'Ens.MessageBody'),
        'mode': getattr(meta, 'mode', 'managed'),
        'auto_sync': getattr(meta, 'auto_sync', True),
    }


def encode_name_part(part):
    """IoP's reversible encoding of a Python name part as an IRIS name part."""
    out = []
    for char in part:
        if char == 'z':
            out.append('zz')
        elif char == '_':
            out.append('zU')
        elif char.isascii() and char.isalnum():
            out.append(char)
        else:
            out.append(f'zX{ord(char):X}z')
    return ''.join(out)


def decode_name_part(part):
    def replace(match):
        token = match.group(0)
        if token == 'zz':
            return 'z'
        if token == 'zU':
            return '_'
        return chr(int(token[2:-1], 16))

    return re.sub(r'zz|zU|zX[0-9A-F]+z', replace, part)


def encoded_iris_classname(python_classname):
    return '.'.join(encode_name_part(part) for part in python_classname.split('.'))


class _Registry:
    def __init__(self):
        self.by_python = {}
        self.names = {}  # python classname -> IRIS classname given at registration
        self.by_iris = {}
        self.not_persistent = set()  # IRIS names already found to be ordinary native classes

    def add(self, cls):
        self.by_python[get_python_classname(cls)] = cls
        self.by_iris[iris_classname(cls)] = cls

    def register(self, cls, name):
        self.names[get_python_classname(cls)] = name
        self.by_iris[name] = cls


_registry = _Registry()


def iris_classname(cls):
    meta = meta_of(cls)
    if meta['classname']:
        return str(meta['classname'])
    registered = _registry.names.get(get_python_classname(cls))
    if registered:
        return registered
    return encoded_iris_classname(get_python_classname(cls))


def register_persistent_message(cls, iris_name=None, sync_schema=True):
    """Records the IRIS class name of a PersistentMessage class (CLASSES entries, Production.message)."""
    if not _is_persistent_message_class(cls):
        raise TypeError('msg_cls must be a concrete PersistentMessage subclass')
    meta = meta_of(cls)
    if sync_schema and meta['mode'] != 'managed' and not meta['auto_sync']:
        raise PersistentMessageError(f'{get_python_classname(cls)}: schema sync needs Meta.mode "managed" or auto_sync')
    _registry.register(cls, iris_name or iris_classname(cls))
    return _registry.names[get_python_classname(cls)]


def class_for_iris_name(name):
    """The PersistentMessage class an IRIS class name stands for, or None (an ordinary native class)."""
    found = _registry.by_iris.get(name)
    if found is not None:
        return found
    if name in _registry.not_persistent:
        return None
    found = _import_by_name(name)
    if found is None:
        _registry.not_persistent.add(name)
    return found


def _import_by_name(name):
    python_name = '.'.join(decode_name_part(part) for part in name.split('.'))
    module_name, _, class_name = python_name.rpartition('.')
    if not module_name:
        return None
    import importlib
    import sys

    module = sys.modules.get(module_name)
    if module is None:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            return None
    cls = getattr(module, class_name, None)
    return cls if _is_persistent_message_class(cls) else None


def to_body(value):
    cls = type(value)
    meta = meta_of(cls)
    if meta['mode'] not in ('managed', 'extend'):
        raise PersistentMessageError(f'{get_python_classname(cls)}: unknown Meta.mode {meta["mode"]!r}')
    data = value.to_dict()
    for name, extra in vars(value).items():
        if name not in cls.__iop_fields__ and not name.startswith('_'):
            data[name] = _jsonable(extra)
    return {'classname': iris_classname(cls), 'encoding': 'native', 'data': json.dumps(data, ensure_ascii=False, separators=(',', ':'))}


def _hints(cls):
    try:
        return typing.get_type_hints(cls)
    except Exception:
        return {}


def _type_name(annotation):
    if annotation is None:
        return 'String'
    from .._settings import iris_data_type

    if isinstance(annotation, type) and issubclass(annotation, Model):
        return iris_classname(annotation) if _is_persistent_message_class(annotation) else get_python_classname(annotation)
    return iris_data_type(annotation) or 'String'


def _jsonable(value):
    if isinstance(value, Model):
        return value.to_dict()
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, (decimal.Decimal, uuid.UUID)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _jsonable(dataclasses.asdict(value))
    return value


def _typed(value, annotation):
    if value is None or annotation is None:
        return value
    origin = typing.get_origin(annotation)
    if origin is typing.Union:
        args = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        return _typed(value, args[0]) if len(args) == 1 else value
    if origin in (list, tuple) and isinstance(value, list):
        args = typing.get_args(annotation)
        return [_typed(item, args[0]) for item in value] if args else value
    if isinstance(annotation, type):
        if issubclass(annotation, Model) and isinstance(value, dict):
            return annotation.from_dict(value)
        try:
            if annotation is datetime.datetime and isinstance(value, str):
                return datetime.datetime.fromisoformat(value)
            if annotation is datetime.date and isinstance(value, str):
                return datetime.date.fromisoformat(value)
            if annotation is decimal.Decimal:
                return decimal.Decimal(str(value))
            if annotation in (int, float, str) and not isinstance(value, annotation):
                return annotation(value)
        except (TypeError, ValueError):
            return value
    return value
