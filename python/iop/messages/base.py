"""`iop.messages.base`: the message base classes (IoP 4 layout)."""
from .._message import Message, PickleMessage, is_pydantic_message  # noqa: F401

_Message = Message
_PickleMessage = PickleMessage


def __getattr__(name):
    if name in ('PydanticMessage', 'PydanticPickleMessage', '_PydanticMessage', '_PydanticPickleMessage'):
        from .. import _message

        return getattr(_message, name.lstrip('_'))
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
