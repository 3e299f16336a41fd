"""Python objects <-> message bodies on the wire (`{classname, encoding, data}`).

Identity is `module.Class` (iop/_classnames.py). Dataclass messages travel as compact JSON of their
attributes (extra attributes included), most of them written by the flat-message template
(iop/_flat_template.py); decoding follows the constructor's fields (iop/_typed_decoding.py).
Components get what they receive with `deserialize(body, lazy=True)`, which leaves a large
dataclass message undecoded until user code touches it (iop/_stand_ins.py).
"""
import base64
import dataclasses
import datetime
import decimal
import enum
import pickle
import sys
import threading
import types
import typing
import uuid

import iris

from ._classnames import SerializationError, classname_of, load_class
from ._flat_template import flat_attributes_json
from ._json import compact_json_encoder, loads
from ._message import Message, PickleMessage, is_pydantic_message
from ._stand_ins import LAZY_MIN_CHARS, LOCK, PENDING, StandInType, decodable_in_place, make_stand_in, stand_in_classes, undecoded_body
from ._typed_decoding import from_json

_PERSISTENT_MODULE = 'iop.messages.persistent'

# Native classes of these packages are never PersistentMessages: no import is tried for them.
_IRIS_SYSTEM_PACKAGES = ('Ens.', 'EnsLib.', 'IOP.', '%', 'HS.')


# --- encoding -----------------------------------------------------------------------------------

_dumps = compact_json_encoder(ensure_ascii=False, allow_nan=False)

# Classes found to be plain dataclass Messages, with their wire classname: whether a class is one
# depends on the class alone, and checking it costs more than encoding a small message.
_dataclass_messages = {}


def serialize(value):
    """The wire body of `value`, or None for "no message"."""
    cls = type(value)
    # Before any lookup keyed by class: a stand-in class equals its message class (iop/_stand_ins.py).
    if type(cls) is StandInType:
        body = undecoded_body(value)
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
    data = flat_attributes_json(value)
    if data is None:
        try:
            data = _dumps(_attributes(value))
        except (TypeError, ValueError):
            if not isinstance(value, PickleMessage):
                raise
            return serialize_pickle(value)
    return {'classname': classname, 'encoding': 'json', 'data': data}


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


_UNKNOWN = object()  # a class not looked at yet (None in stand_in_classes: no stand-in for it)


def deserialize(body, lazy=False):
    """The Python object a wire body stands for (None for no body). `lazy`: a large dataclass
    message is decoded when first touched (iop/_stand_ins.py); components get theirs so."""
    if body is None:
        return None
    encoding = body.get('encoding')
    classname = body.get('classname', '')
    if encoding == 'json':
        # Nearly every body: the encodings are distinct strings, so testing this one first changes no outcome.
        cls = load_class(classname)
        text = body.get('data') or '{}'
        if lazy and len(text) >= LAZY_MIN_CHARS and type(text) is str:
            stand_in = stand_in_classes.get(cls, _UNKNOWN)
            if stand_in is _UNKNOWN:
                stand_in = stand_in_classes[cls] = make_stand_in(cls) if decodable_in_place(cls) else None
            if stand_in is not None:
                message = object.__new__(stand_in)
                object.__setattr__(message, PENDING, text)
                object.__setattr__(message, LOCK, threading.RLock())
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
