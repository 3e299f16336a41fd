"""IoP 3.6's module name `iop._private_session_process`, kept for code that imports it (IoP 4 moved it)."""
from ._duplex import DuplexProcess as _PrivateSessionProcess  # noqa: F401
