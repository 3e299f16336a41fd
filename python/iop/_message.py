"""Message base classes. User messages are dataclasses deriving from Message, or pydantic models
deriving from PydanticMessage when pydantic is installed.

pydantic is imported only when user code asks for PydanticMessage: importing it costs more than
the rest of the worker's start-up, and most components never use it.
"""
import sys


class _IdentifiedMessage:
    """The persisted id of a message, known once it went through the engine."""

    def get_iris_id(self):
        return getattr(self, '_iris_id', None)


class Message(_IdentifiedMessage):
    """Base of JSON-carried messages. Subclasses must be `@dataclass` classes."""


class PickleMessage(Message):
    """A message allowed to hold values JSON cannot carry: it travels pickled when it must."""


_pydantic_classes = {}


def _make_pydantic_classes():
    try:
        import pydantic
    except ImportError:
        class PydanticMessage(_IdentifiedMessage):
            def __init__(self, *args, **kwargs):
                raise ImportError('PydanticMessage needs the pydantic package, which is not installed')

        class PydanticPickleMessage(PydanticMessage):
            pass
    else:
        class PydanticMessage(pydantic.BaseModel, _IdentifiedMessage):
            model_config = pydantic.ConfigDict(arbitrary_types_allowed=True, extra='allow')

        class PydanticPickleMessage(PydanticMessage):
            pass

    for cls in (PydanticMessage, PydanticPickleMessage):
        cls.__module__ = 'iop'
        cls.__qualname__ = cls.__name__
        _pydantic_classes[cls.__name__] = cls


def __getattr__(name):
    if name in ('PydanticMessage', 'PydanticPickleMessage'):
        if not _pydantic_classes:
            _make_pydantic_classes()
        return _pydantic_classes[name]
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')


def is_pydantic_message(value_or_class):
    pydantic = sys.modules.get('pydantic')
    if pydantic is None:  # never imported: nothing can be a pydantic model
        return False
    cls = value_or_class if isinstance(value_or_class, type) else type(value_or_class)
    return issubclass(cls, pydantic.BaseModel)
