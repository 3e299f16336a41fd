"""Python objects <-> message bodies on the wire (`{classname, encoding, data}`).

Identity is `module.Class`. Dataclass messages travel as compact JSON of their attributes (extra
attributes included); decoding follows the constructor's fields, coerces values to the annotated
types when it can and keeps the raw value when it cannot; unknown keys become attributes.
Components get what they receive with `deserialize(body, lazy=True)`, which leaves a large
dataclass message undecoded until user code touches it (the last section).
"""
import base64
import dataclasses
import datetime
import decimal
import enum
import importlib
import inspect
import json
import pickle
import sys
import threading
import types
import typing
import uuid
from json.encoder import JSONEncoder, c_make_encoder, encode_basestring, encode_basestring_ascii

import iris

from ._message import Message, PickleMessage, is_pydantic_message

_PERSISTENT_MODULE = 'iop.messages.persistent'

# Native classes of these packages are never PersistentMessages: no import is tried for them.
_IRIS_SYSTEM_PACKAGES = ('Ens.', 'EnsLib.', 'IOP.', '%', 'HS.')


class SerializationError(Exception):
    pass


class MessageClassImportError(SerializationError, ImportError):
    """A message class named on the wire that cannot be imported (IoP 4's error type)."""


def classname_of(value):
    return classname_of_class(type(value))


def classname_of_class(cls):
    return f'{cls.__module__}.{cls.__name__}'


_class_cache = {}


def load_class(classname):
    cls = _class_cache.get(classname)
    if cls is not None:
        return cls
    if not classname:
        raise SerializationError('JSON message malformed, must include classname')
    module_name, _, class_name = classname.rpartition('.')
    if not module_name:
        raise MessageClassImportError(f'Classname must include a module: {classname}')
    try:
        module = importlib.import_module(module_name)
        cls = getattr(module, class_name)
    except Exception as error:  # the message names the class whatever went wrong
        raise MessageClassImportError(f'Failed to load class {classname}: {error}') from error
    _class_cache[classname] = cls
    return cls


# --- JSON ---------------------------------------------------------------------------------------
# json.dumps and json.loads cost more in their Python set-up (a new JSONEncoder per call, the
# encoding detection, two whitespace regexes) than in the C code doing the work on a small frame or
# message: these call the C encoder and scanner, built once.

def compact_json_encoder(ensure_ascii, allow_nan):
    """`json.dumps(value, ensure_ascii=..., allow_nan=..., separators=(',', ':'))`, same text, same errors."""
    checking = JSONEncoder(ensure_ascii=ensure_ascii, allow_nan=allow_nan, separators=(',', ':'))
    if c_make_encoder is None:  # an interpreter without the _json accelerator
        return checking.encode
    string = encode_basestring_ascii if ensure_ascii else encode_basestring
    # Without the circular-reference check, whose bookkeeping one encoder cannot share between
    # threads: a cycle then ends in RecursionError, and the checking encoder says what it is.
    unchecked = c_make_encoder(None, checking.default, string, None, ':', ',', False, False, allow_nan)

    def encode(value):
        try:
            return ''.join(unchecked(value, 0))
        except RecursionError:
            return checking.encode(value)

    return encode


_dumps = compact_json_encoder(ensure_ascii=False, allow_nan=False)
_decoder = json.JSONDecoder()
_scan = _decoder.scan_once


def loads(text):
    """`json.loads(text)`: the same value, the same errors (except that a str starting with a
    byte-order mark fails as "Expecting value" where json.loads names the BOM)."""
    if type(text) is not str:
        return json.loads(text)
    try:
        value, end = _scan(text, 0)
    except StopIteration:  # leading whitespace or no value: the full decoder skips it or says why
        return _decoder.decode(text)
    if end != len(text):
        return _decoder.decode(text)  # trailing whitespace, or extra data it reports
    return value


# --- encoding -----------------------------------------------------------------------------------

# Classes found to be plain dataclass Messages, with their wire classname: whether a class is one
# depends on the class alone, and checking it costs more than encoding a small message.
_dataclass_messages = {}


def serialize(value):
    """The wire body of `value`, or None for "no message"."""
    cls = type(value)
    # Before any lookup keyed by class: a stand-in class equals its message class (last section).
    if type(cls) is _StandInType:
        body = _undecoded_body(value)
        if body is not None:
            return body
        cls = cls._conveyor_class
    classname = _dataclass_messages.get(cls)
    if classname is not None:
        return _message_body(value, classname)
    if value is None or (isinstance(value, str) and value == ''):
        return None
    if iris.is_native(value):
        properties = value._properties()
        if not properties and not type(value)._all_properties():
            return {'classname': type(value).__name__, 'encoding': 'empty', 'data': ''}
        return {'classname': type(value).__name__, 'encoding': 'native', 'data': _dumps(to_jsonable(properties))}
    if is_pydantic_message(value):
        return {'classname': classname_of(value), 'encoding': 'json', 'data': value.model_dump_json()}
    persistent = sys.modules.get(_PERSISTENT_MODULE)  # loaded by any code that defines a PersistentMessage
    if persistent is not None and isinstance(value, persistent.Model):
        if not persistent.is_persistent_message(value):
            raise SerializationError(f'{classname_of(value)} is an embedded Model: send a PersistentMessage that holds it')
        return persistent.to_body(value)
    if isinstance(value, Message):
        if not dataclasses.is_dataclass(value):
            raise TypeError(f'{type(value).__module__}.{type(value).__qualname__} must be a dataclass')
        classname = _dataclass_messages[type(value)] = classname_of(value)
        return _message_body(value, classname)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        raise SerializationError(f'{classname_of(value)} is a dataclass but not a Message: derive it from iop.Message')
    if isinstance(value, (types.GeneratorType, typing.Iterator)):
        raise TypeError('A generator cannot be sent as a message: use send_generator_request')
    raise TypeError('The message must be an instance of a class that is a subclass of Message or IRISObject %Persistent class.')


def serialize_pickle(value):
    data = base64.encodebytes(pickle.dumps(value)).decode('ascii')
    return {'classname': classname_of(value), 'encoding': 'pickle', 'data': data}


def _message_body(value, classname):
    data = _flat_attributes_json(value)
    if data is None:
        try:
            data = _dumps(_attributes(value))
        except (TypeError, ValueError):
            if not isinstance(value, PickleMessage):
                raise
            return serialize_pickle(value)
    return {'classname': classname, 'encoding': 'json', 'data': data}


# A message whose attributes are all exact strs, ints, bools or None is written from a template
# per attribute layout instead of through the C encoder, which costs ~2,000 instructions per member
# of a small dict (an 18,000-instruction body became 10,000; docs/benchmarks.md, issue 16, fourth
# session). The text is `_dumps(_attributes(value))`'s to the byte: keys and strings escaped by the
# encoder's own function, the same order, `_`-attributes left out. Any other value (a float, whose
# range the encoder checks; a nested object; a str subclass) sends the message the general way.
_layouts = {}  # tuple of an instance's attribute names -> (names written, %-template), or None
_MAX_LAYOUTS = 256  # instances with ever new attribute names are not remembered past this


def _flat_attributes_json(value):
    state = getattr(value, '__dict__', None)
    if type(state) is not dict:
        return None  # no attributes of its own to write: the general way says what it makes of that
    keys = tuple(state)
    layout = _layouts.get(keys, _UNKNOWN)
    if layout is _UNKNOWN:
        layout = None
        if all(type(key) is str for key in keys):
            names = tuple(key for key in keys if not key.startswith('_'))
            template = '{' + ','.join(encode_basestring(name).replace('%', '%%') + ':%s' for name in names) + '}'
            layout = (names, template)
        if len(_layouts) < _MAX_LAYOUTS:
            _layouts[keys] = layout
    if layout is None:
        return None
    names, template = layout
    parts = []
    try:
        for name in names:
            item = state[name]
            kind = type(item)
            if kind is str:
                parts.append(encode_basestring(item))
            elif kind is int:
                parts.append(int.__repr__(item))
            elif item is None:
                parts.append('null')
            elif kind is bool:
                parts.append('true' if item else 'false')
            else:
                return None
    except ValueError:  # an int too long to write: the general way raises it, or pickles the message
        return None
    return template % tuple(parts)


# Values of exactly these types are their own JSON form; the others (their subclasses included) go
# through to_jsonable.
_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})


def _attributes(obj):
    return {k: v if type(v) in _JSON_SCALARS else to_jsonable(v) for k, v in vars(obj).items() if not k.startswith('_')}


def to_jsonable(value):
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, (decimal.Decimal, uuid.UUID)):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode('utf-8')
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in value]
    if is_pydantic_message(value):
        return value.model_dump(mode='json')
    if iris.is_native(value):
        return to_jsonable(value._properties())
    if hasattr(value, '__dict__'):
        return _attributes(value)
    raise TypeError(f'Object of type {type(value).__name__} cannot be carried as JSON')


# --- decoding -----------------------------------------------------------------------------------

def _persistent_class(classname):
    """The PersistentMessage class a native body names, or None (system classes are never one)."""
    if not classname or classname.startswith(_IRIS_SYSTEM_PACKAGES):
        return None
    from .messages import persistent  # compiled only by workers that receive user native classes

    return persistent.class_for_iris_name(classname)


def deserialize(body, lazy=False):
    """The Python object a wire body stands for (None for no body). `lazy`: a large dataclass
    message is decoded when first touched (see the last section); components get theirs so."""
    if body is None:
        return None
    encoding = body.get('encoding')
    classname = body.get('classname', '')
    if encoding == 'json':
        # Nearly every body: the encodings are distinct strings, so testing this one first changes no outcome.
        cls = load_class(classname)
        text = body.get('data') or '{}'
        if lazy and len(text) >= LAZY_MIN_CHARS and type(text) is str:
            stand_in = _stand_in_classes.get(cls, _UNKNOWN)
            if stand_in is _UNKNOWN:
                stand_in = _stand_in_classes[cls] = _make_stand_in(cls) if _decodable_in_place(cls) else None
            if stand_in is not None:
                message = object.__new__(stand_in)
                object.__setattr__(message, _PENDING, text)
                object.__setattr__(message, _LOCK, threading.RLock())
                return message
        return from_json(cls, text)
    if encoding == 'empty':
        return iris.cls(classname or 'Ens.Request')()
    if encoding == 'native':
        properties = loads(body['data']) if body.get('data') else {}
        persistent = _persistent_class(classname)
        if persistent is not None:
            return persistent.from_dict(properties)
        return iris.cls(classname)(**properties)
    if encoding == 'pickle':
        return pickle.loads(base64.b64decode(body['data']))
    raise SerializationError(f'Unknown body encoding {encoding!r} for {classname}')


# Dataclasses (not pydantic models) decoded from JSON before, with their _fields_of: what the
# class is does not change, and asking costs as much as decoding a small message.
_json_dataclasses = {}


def from_json(cls, text):
    fields = _json_dataclasses.get(cls)
    if fields is None:
        if is_pydantic_message(cls):
            return cls.model_validate_json(text)
        if dataclasses.is_dataclass(cls):
            fields = _json_dataclasses[cls] = _fields_of(cls)
    data = loads(text)
    if not isinstance(data, dict):
        raise SerializationError(f'The JSON of a {cls.__module__}.{cls.__name__} must be an object')
    if fields is not None:
        return _dataclass_from_fields(cls, fields, data)
    instance = cls.__new__(cls)
    instance.__dict__.update(data)
    return instance


def dataclass_from_dict(cls, data):
    return _dataclass_from_fields(cls, _fields_of(cls), data)


def _dataclass_from_fields(cls, fields, data, instance=None):
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


def _fields_of(cls):
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


# --- received messages, decoded on first use ----------------------------------------------------
# A component that passes a large message on unchanged (a process routing it, a service handing its
# input on) should not pay for decoding its JSON into the dataclass and encoding it again: for 1 MB,
# about 2 and 5 ms of CPU per worker (docs/benchmarks.md, issue 16). `deserialize(body, lazy=True)`
# hands such a message over as an instance of a stand-in subclass of its class that holds only the
# body's text. Whatever user code does with it reads or writes an attribute first (a field, a
# method, `vars`, `==`, `repr`, copy, pickle): that decodes the text in place, through the class's
# own `__init__`, and the instance becomes a plain instance of its class, for good. `serialize`
# sends a message never touched as the text it came in; a decoded one is encoded from its
# attributes, so a change is never lost. Before the first touch, `isinstance` holds and the stand-in
# class equals (and hashes as) the message class, so `type(m) == Cls` holds too; only
# `type(m) is Cls` does not.

# Shorter bodies are decoded at once: decoding them costs a few microseconds, and a body that does
# not decode fails before the component's code runs. Long bodies are the ones frames carry raw.
LAZY_MIN_CHARS = 1024
_PENDING = '_conveyor_pending_json'
# Each stand-in's own lock, held while it is decoded: another thread touching the same message waits
# for the fields instead of reading the class defaults. Reentrant: `__init__` sets the fields through
# the stand-in. Per message, not one for all: decoding runs the class's `__init__`/`__post_init__`,
# user code that may wait on a thread touching another message. Gone once the message is decoded.
_LOCK = '_conveyor_decoding'


class _StandInType(type):
    """The class of stand-in classes: equal to the message class they stand in for."""

    def __eq__(cls, other):
        return cls is other or cls._conveyor_class is other

    def __hash__(cls):
        return hash(cls._conveyor_class)

    def __call__(cls, *args, **kwargs):
        # `type(m)(...)` on a message not yet touched builds a plain instance of its class.
        return cls._conveyor_class(*args, **kwargs)


# message class -> its stand-in class, or None when its instances cannot be decoded in place
_stand_in_classes = {}
_UNKNOWN = object()


def _decodable_in_place(cls):
    """Whether an instance can be a stand-in until touched: a plain dataclass Message whose class
    does not hook attribute access, construction or subclassing (frozen dataclasses hook setattr)."""
    if type(cls) is not type or not issubclass(cls, Message) or not dataclasses.is_dataclass(cls):
        return False
    if (cls.__getattribute__ is not object.__getattribute__ or cls.__setattr__ is not object.__setattr__
            or cls.__delattr__ is not object.__delattr__ or cls.__new__ is not object.__new__ or hasattr(cls, '__getattr__')):
        return False
    if any('__init_subclass__' in vars(base) for base in cls.__mro__[:-1]):
        return False  # the stand-in class would be registered, counted or refused by user code
    # The stand-in must have the same layout, or the instance could not become a `cls` again.
    return bool(cls.__dictoffset__ and cls.__weakrefoffset__)


def _make_stand_in(cls):
    namespace = {
        '__module__': cls.__module__, '__qualname__': cls.__qualname__, '__doc__': cls.__doc__,
        '_conveyor_class': cls,
        '__getattribute__': _read_undecoded, '__setattr__': _write_undecoded, '__delattr__': _delete_undecoded,
    }
    stand_in = _StandInType(cls.__name__, (cls,), namespace)
    try:
        object.__setattr__(object.__new__(stand_in), '__class__', cls)
    except TypeError:  # a layout the checks above did not foresee
        return None
    return stand_in


def _read_undecoded(message, name):
    if name == '__class__':  # what a failed isinstance() asks: the answer needs no decoding
        return type(message)._conveyor_class
    _decode_locked(message)
    return object.__getattribute__(message, name)


def _write_undecoded(message, name, value):
    if name == '_iris_id':  # the SDK telling a received message its id: not part of the body
        object.__setattr__(message, name, value)
        return
    _decode_locked(message)
    object.__setattr__(message, name, value)


def _delete_undecoded(message, name):
    _decode_locked(message)
    object.__delattr__(message, name)


def _decode_locked(message):
    lock = object.__getattribute__(message, '__dict__').get(_LOCK)
    if lock is None:
        return  # decoded meanwhile by another thread
    with lock:
        _decode_in_place(message)


def _decode_in_place(message):
    """Decodes a stand-in's text into its fields and makes it a plain instance of its class. Does
    nothing once that is done or while it is being done on this thread (`__init__` setting fields)."""
    state = object.__getattribute__(message, '__dict__')
    text = state.pop(_PENDING, None)
    if text is None:
        return
    stand_in = type(message)
    cls = stand_in._conveyor_class
    lock = state.pop(_LOCK, None)
    learnt = dict(state)  # the id set on receipt: after the fields, as when decoded at once
    state.clear()
    state[_LOCK] = lock  # until the fields are in: another thread touching it waits on the lock
    try:
        fields = _fields_of(cls)
        data = loads(text)
        if not isinstance(data, dict):
            raise SerializationError(f'The JSON of a {cls.__module__}.{cls.__name__} must be an object')
        _dataclass_from_fields(cls, fields, data, message)
    except BaseException as error:
        state.clear()
        state.update(learnt)
        state[_PENDING] = text  # still undecoded: the next touch fails the same way
        state[_LOCK] = lock
        what = f'(while decoding the received {cls.__module__}.{cls.__name__} when it was first used)'
        if isinstance(error, AttributeError):
            # Raised out of __getattribute__ it would read as "no such attribute": hasattr() and
            # getattr() with a default would hide the failure that decoding at once raised.
            raise SerializationError(f'{type(error).__name__}: {error} {what}') from error
        add_note = getattr(error, 'add_note', None)  # Python 3.11 and later
        if add_note is not None and isinstance(error, Exception):
            add_note(what)
        raise
    state.pop(_LOCK, None)
    state.update(learnt)
    object.__setattr__(message, '__class__', cls)


def _undecoded_body(message):
    """The body a stand-in arrived as, or None if it has been decoded meanwhile."""
    state = object.__getattribute__(message, '__dict__')
    lock = state.get(_LOCK)
    if lock is None:
        return None
    with lock:
        text = state.get(_PENDING)
    if text is None:
        return None
    return {'classname': classname_of_class(type(message)._conveyor_class), 'encoding': 'json', 'data': text}
