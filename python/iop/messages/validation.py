"""`iop.messages.validation`: what counts as a message (IoP 4 layout)."""
import dataclasses
import sys

from .._message import Message, PickleMessage, is_pydantic_message


def is_message_class(klass):
    try:
        return issubclass(klass, Message) or is_pydantic_message(klass)
    except TypeError:
        return False


def is_pickle_message_class(klass):
    try:
        if issubclass(klass, PickleMessage):
            return True
    except TypeError:
        return False
    return is_pydantic_message(klass) and any(base.__name__ == 'PydanticPickleMessage' for base in klass.__mro__)


def is_message_instance(obj):
    """True for a Message (which must be a dataclass) or a pydantic message."""
    if is_pydantic_message(obj):
        return True
    if is_message_class(type(obj)):
        if not dataclasses.is_dataclass(obj):
            raise TypeError(f'{type(obj).__module__}.{type(obj).__qualname__} must be a dataclass')
        return True
    return False


def is_pickle_message_instance(obj):
    return is_pickle_message_class(type(obj))


def is_iris_object_instance(obj):
    iris = sys.modules.get('iris')
    return obj is not None and iris is not None and iris.is_native(obj)
