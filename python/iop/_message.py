"""Message base classes. User messages are dataclasses deriving from Message (or pydantic models
deriving from PydanticMessage when pydantic is installed)."""


class _IdentifiedMessage:
    """The persisted id of a message, known once it went through the engine."""

    def get_iris_id(self):
        return getattr(self, '_iris_id', None)


class Message(_IdentifiedMessage):
    """Base of JSON-carried messages. Subclasses must be `@dataclass` classes."""


class PickleMessage(Message):
    """A message allowed to hold values JSON cannot carry: it travels pickled when it must."""


try:
    import pydantic as _pydantic
except ImportError:  # pydantic is optional: the classes exist but refuse to be used
    _pydantic = None


if _pydantic is not None:
    class PydanticMessage(_pydantic.BaseModel, _IdentifiedMessage):
        model_config = _pydantic.ConfigDict(arbitrary_types_allowed=True, extra='allow')

    class PydanticPickleMessage(PydanticMessage):
        pass
else:
    class PydanticMessage(_IdentifiedMessage):
        def __init__(self, *args, **kwargs):
            raise ImportError('PydanticMessage needs the pydantic package, which is not installed')

    class PydanticPickleMessage(PydanticMessage):
        pass


def is_pydantic_message(value_or_class):
    if _pydantic is None:
        return False
    cls = value_or_class if isinstance(value_or_class, type) else type(value_or_class)
    return issubclass(cls, _pydantic.BaseModel)
