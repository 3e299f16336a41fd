"""PersistentMessage classes of the IoP 4 tests."""
import datetime
from typing import List

from iop import Field, Model, PersistentMessage


class Address(Model, serial=True):
    city: str = ''


class NativeOrder(PersistentMessage):
    order_id: str = Field(required=True, max_length=8)
    quantity: int = 1
    placed: datetime.date = None
    address: Address = None
    tags: List[str] = Field(default_factory=list)


class Named(PersistentMessage):
    code: str = ''

    class Meta:
        classname = 'Demo.Named'
