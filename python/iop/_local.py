"""IoP 3.6's module name `iop._local`, kept for code that imports it (IoP 4 moved it)."""
from .runtime._rest import _LocalDirector  # noqa: F401
