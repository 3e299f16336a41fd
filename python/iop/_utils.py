"""IoP 3.6's module name `iop._utils`, kept for code that imports it (IoP 4 moved it)."""
from .migration.utils import _Utils  # noqa: F401
