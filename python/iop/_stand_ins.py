"""Received messages decoded on first use: the stand-ins `deserialize(body, lazy=True)` hands over.

A component that passes a large message on unchanged (a process routing it, a service handing its
input on) should not pay for decoding its JSON into the dataclass and encoding it again: for 1 MB,
about 2 and 5 ms of CPU per worker (docs/benchmarks.md, issue 16). `deserialize(body, lazy=True)`
hands such a message over as an instance of a stand-in subclass of its class that holds only the
body's text. Whatever user code does with it reads or writes an attribute first (a field, a
method, `vars`, `==`, `repr`, copy, pickle): that decodes the text in place, through the class's
own `__init__`, and the instance becomes a plain instance of its class, for good. `serialize`
sends a message never touched as the text it came in; a decoded one is encoded from its
attributes, so a change is never lost. Before the first touch, `isinstance` holds and the stand-in
class equals (and hashes as) the message class, so `type(m) == Cls` holds too; only
`type(m) is Cls` does not.
"""
import dataclasses

from ._classnames import SerializationError, classname_of_class
from ._json import loads
from ._message import Message
from ._typed_decoding import dataclass_from_fields, fields_of

# Shorter bodies are decoded at once: decoding them costs a few microseconds, and a body that does
# not decode fails before the component's code runs. Long bodies are the ones frames carry raw.
LAZY_MIN_CHARS = 1024
PENDING = '_conveyor_pending_json'
# Each stand-in's own lock, held while it is decoded: another thread touching the same message waits
# for the fields instead of reading the class defaults. Reentrant: `__init__` sets the fields through
# the stand-in. Per message, not one for all: decoding runs the class's `__init__`/`__post_init__`,
# user code that may wait on a thread touching another message. Gone once the message is decoded.
LOCK = '_conveyor_decoding'


class StandInType(type):
    """The class of stand-in classes: equal to the message class they stand in for."""

    def __eq__(cls, other):
        return cls is other or cls._conveyor_class is other

    def __hash__(cls):
        return hash(cls._conveyor_class)

    def __call__(cls, *args, **kwargs):
        # `type(m)(...)` on a message not yet touched builds a plain instance of its class.
        return cls._conveyor_class(*args, **kwargs)


# message class -> its stand-in class, or None when its instances cannot be decoded in place
stand_in_classes = {}


def decodable_in_place(cls):
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


def make_stand_in(cls):
    namespace = {
        '__module__': cls.__module__, '__qualname__': cls.__qualname__, '__doc__': cls.__doc__,
        '_conveyor_class': cls,
        '__getattribute__': _read_undecoded, '__setattr__': _write_undecoded, '__delattr__': _delete_undecoded,
    }
    stand_in = StandInType(cls.__name__, (cls,), namespace)
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
    lock = object.__getattribute__(message, '__dict__').get(LOCK)
    if lock is None:
        return  # decoded meanwhile by another thread
    with lock:
        _decode_in_place(message)


def _decode_in_place(message):
    """Decodes a stand-in's text into its fields and makes it a plain instance of its class. Does
    nothing once that is done or while it is being done on this thread (`__init__` setting fields)."""
    state = object.__getattribute__(message, '__dict__')
    text = state.pop(PENDING, None)
    if text is None:
        return
    stand_in = type(message)
    cls = stand_in._conveyor_class
    lock = state.pop(LOCK, None)
    learnt = dict(state)  # the id set on receipt: after the fields, as when decoded at once
    state.clear()
    state[LOCK] = lock  # until the fields are in: another thread touching it waits on the lock
    try:
        fields = fields_of(cls)
        data = loads(text)
        if not isinstance(data, dict):
            raise SerializationError(f'The JSON of a {cls.__module__}.{cls.__name__} must be an object')
        dataclass_from_fields(cls, fields, data, message)
    except BaseException as error:
        state.clear()
        state.update(learnt)
        state[PENDING] = text  # still undecoded: the next touch fails the same way
        state[LOCK] = lock
        what = f'(while decoding the received {cls.__module__}.{cls.__name__} when it was first used)'
        if isinstance(error, AttributeError):
            # Raised out of __getattribute__ it would read as "no such attribute": hasattr() and
            # getattr() with a default would hide the failure that decoding at once raised.
            raise SerializationError(f'{type(error).__name__}: {error} {what}') from error
        add_note = getattr(error, 'add_note', None)  # Python 3.11 and later
        if add_note is not None and isinstance(error, Exception):
            add_note(what)
        raise
    state.pop(LOCK, None)
    state.update(learnt)
    object.__setattr__(message, '__class__', cls)


def undecoded_body(message):
    """The body a stand-in arrived as, or None if it has been decoded meanwhile."""
    state = object.__getattribute__(message, '__dict__')
    lock = state.get(LOCK)
    if lock is None:
        return None
    with lock:
        text = state.get(PENDING)
    if text is None:
        return None
    return {'classname': classname_of_class(type(message)._conveyor_class), 'encoding': 'json', 'data': text}
