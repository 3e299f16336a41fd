"""IoP 3.6's module name `iop._remote`, kept for code that imports it (IoP 4 moved it)."""
from .runtime._rest import _RemoteDirector  # noqa: F401
from .runtime.remote import get_remote_settings  # noqa: F401
