"""Conveyor's drop-in for IoP's `iop` package: what user components and messages import."""
from ._components import (
    BusinessOperation,
    BusinessProcess,
    BusinessService,
    DuplexOperation,
    DuplexProcess,
    DuplexService,
    InboundAdapter,
    OutboundAdapter,
)
from ._business_host import apply_transform as transform
from ._business_host import import_schema
from ._director import Director
from . import _message
from ._message import Message, PickleMessage

__all__ = [
    'BusinessOperation', 'BusinessProcess', 'BusinessService', 'DuplexOperation', 'DuplexProcess', 'DuplexService',
    'InboundAdapter', 'OutboundAdapter', 'Director', 'Message', 'transform', 'import_schema', 'PickleMessage', 'PydanticMessage', 'PydanticPickleMessage',
]


def __getattr__(name):
    # PydanticMessage and PydanticPickleMessage are made on first use (see _message).
    return getattr(_message, name)
