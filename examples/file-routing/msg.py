from dataclasses import dataclass

from iop import Message


@dataclass
class FileMessage(Message):
    """A text file picked up from the inbox."""

    name: str = None
    text: str = None


@dataclass
class WriteResult(Message):
    """Where a writer put a file, and which worker process did it."""

    path: str = None
    worker_pid: int = None
