"""Message classes for the SDK's own tests (module `tests.sample_messages`)."""
import datetime
import decimal
import uuid
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from iop import Message, PickleMessage


@dataclass
class SimpleMessage(Message):
    integer: int = None
    string: str = None


@dataclass
class Inner:
    name: str = None
    size: int = 0


@dataclass
class Nested(Message):
    inner: Inner = None
    inners: List[Inner] = None
    by_key: Dict[str, Inner] = None
    maybe: Optional[int] = None


@dataclass
class Typed(Message):
    when: datetime.datetime = None
    day: datetime.date = None
    amount: decimal.Decimal = None
    ident: uuid.UUID = None
    raw: bytes = None
    flag: bool = False
    tags: List[str] = field(default_factory=list)


@dataclass
class Required(Message):
    needed: str


@dataclass
class Boxed(PickleMessage):
    payload: object = None


class NotDataclass(Message):
    pass


@dataclass
class PlainDataclass:
    x: int = 0
