"""IoP 3.6's module name `iop._director_protocol`, kept for code that imports it (IoP 4 moved it)."""
from .runtime.protocol import DirectorProtocol  # noqa: F401
