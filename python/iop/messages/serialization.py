"""`iop.messages.serialization`: wire bodies <-> Python messages (IoP 4 layout)."""
from .._classnames import (  # noqa: F401
    MessageClassImportError,
    SerializationError,
    load_class,
)
from .._serialization import (  # noqa: F401
    deserialize,
    serialize,
    serialize_pickle,
)
