"""IoP 4's `iop.messages` package: message bases, serialization, dispatch and persistent messages."""
from .._message import Message, PickleMessage
from .._dispatch import handler

__all__ = ['Message', 'PickleMessage', 'PydanticMessage', 'PydanticPickleMessage', 'handler', 'Field', 'Model', 'PersistentMessage']


def __getattr__(name):
    if name in ('Field', 'Model', 'PersistentMessage'):
        from . import persistent

        return getattr(persistent, name)
    if name in ('PydanticMessage', 'PydanticPickleMessage'):
        from .. import _message

        return getattr(_message, name)
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
