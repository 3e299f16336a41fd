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
from ._director import Director
from ._message import Message, PickleMessage, PydanticMessage, PydanticPickleMessage

__all__ = [
    'BusinessOperation', 'BusinessProcess', 'BusinessService', 'DuplexOperation', 'DuplexProcess', 'DuplexService',
    'InboundAdapter', 'OutboundAdapter', 'Director', 'Message', 'PickleMessage', 'PydanticMessage', 'PydanticPickleMessage',
]
