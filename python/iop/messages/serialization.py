"""`iop.messages.serialization`: wire bodies <-> Python messages (IoP 4 layout)."""
from .._serialization import (  # noqa: F401
    MessageClassImportError,
    SerializationError,
    deserialize,
    load_class,
    serialize,
    serialize_pickle,
)
