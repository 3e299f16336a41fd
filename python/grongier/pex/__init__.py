"""Legacy alias of `iop`: the same classes under IoP's former package name."""
from iop import (
    BusinessOperation,
    BusinessProcess,
    BusinessService,
    Director,
    DuplexOperation,
    DuplexProcess,
    DuplexService,
    InboundAdapter,
    Message,
    OutboundAdapter,
    PickleMessage,
    Utils,
)

__all__ = [
    'BusinessOperation', 'BusinessProcess', 'BusinessService', 'Director', 'DuplexOperation', 'DuplexProcess',
    'DuplexService', 'InboundAdapter', 'Message', 'OutboundAdapter', 'PickleMessage', 'Utils',
]
