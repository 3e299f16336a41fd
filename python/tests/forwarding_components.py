"""Components and messages for the tests of received messages decoded on first use
(tests/test_received_messages.py): what they do to the request decides whether it is decoded."""
from dataclasses import dataclass, field
from typing import List

from iop import BusinessOperation, BusinessProcess, BusinessService, Message


@dataclass
class Bulky(Message):
    sequence: int = 0
    payload: str = ''
    tags: List[str] = field(default_factory=list)


class PassOn(BusinessProcess):
    """Routes without looking: the request goes on as it came."""

    def on_request(self, request):
        return self.send_request_sync('Next', request)


class ReadThenPassOn(BusinessProcess):
    """Reads a field to route, changes nothing."""

    def on_request(self, request):
        return self.send_request_sync('Next' if request.sequence >= 0 else 'Elsewhere', request)


class ChangeThenPassOn(BusinessProcess):
    """Changes the request in place, deep down, before passing it on."""

    def on_request(self, request):
        request.tags.append('seen')
        request.sequence += 1
        return self.send_request_sync('Next', request)


class PassOnLater(BusinessProcess):
    """Keeps each request and passes on the one it kept before: a message from an answered request."""

    kept = None

    def on_request(self, request):
        kept, self.kept = self.kept, request
        return self.send_request_sync('Next', kept if kept is not None else request)


class InputPassOn(BusinessService):
    def on_process_input(self, message_input):
        return self.send_request_sync('Next', message_input)


class Measure(BusinessOperation):
    def on_message(self, request: Bulky):
        return Bulky(sequence=request.sequence, payload=str(len(request.payload)))


@dataclass
class Checked(Message):
    """Runs code when built: __post_init__ must see the received object itself, fields set."""
    payload: str = ''
    built_on: object = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        self.built_on = id(self)
        if BUILD_HOOK is not None:
            BUILD_HOOK(self)


BUILD_HOOK = None


@dataclass(frozen=True)
class Frozen(Message):
    payload: str = ''


@dataclass(slots=True)
class Slotted(Message):
    payload: str = ''


@dataclass
class Registered(Message):
    """Counts its subclasses: a stand-in subclass must never be made of it."""
    payload: str = ''
    subclasses = []

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        Registered.subclasses.append(cls)


class TypedHandlers(BusinessProcess):
    """Dispatches by the request's class: must find its handler before the request is decoded."""

    def on_bulky(self, request: Bulky):
        return self.send_request_sync('Next', request)
