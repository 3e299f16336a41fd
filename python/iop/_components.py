"""The component base classes user code subclasses.

Default handlers chain through the legacy CamelCase spellings so that code overriding either one
works: on_message -> OnMessage -> on_request -> OnRequest.
"""
import re

from . import _runtime
from ._business_host import _BusinessHost, request_body
from ._common import _Common
from ._serialization import serialize


def _duration_ms(timeout):
    """IRIS durations: seconds as a number, or an ISO 8601 duration text such as `PT30S`."""
    if isinstance(timeout, str) and timeout.upper().startswith('P'):
        match = re.fullmatch(r'P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?', timeout.upper())
        if not match:
            raise ValueError(f'Invalid duration {timeout!r}')
        days, hours, minutes, seconds = (float(part) if part else 0.0 for part in match.groups())
        return int((((days * 24 + hours) * 60 + minutes) * 60 + seconds) * 1000)
    return int(float(timeout) * 1000)


def adapter_type_of(component):
    """The adapter class a service or operation declares, or None. `get_adapter_type` is often
    written without `self` in user code, so it is called on the class first."""
    cls = component if isinstance(component, type) else type(component)
    for name in ('get_adapter_type', 'getAdapterType'):
        method = getattr(cls, name, None)
        if method is None:
            continue
        try:
            result = method()
        except TypeError:
            result = method(cls.__new__(cls))
        if result:
            return result
    return None


class _MessageHandler(_BusinessHost):
    def on_message(self, request):
        return self.OnMessage(request)

    def OnMessage(self, request):
        return self.on_request(request)

    def on_request(self, request):
        return self.OnRequest(request)

    def OnRequest(self, request):
        return None


class BusinessService(_BusinessHost):
    """Receives input from outside (an adapter, a poll every CallInterval, or user code)."""

    _wait_for_next_call_interval = False

    def on_process_input(self, message_input):
        return self.OnProcessInput(message_input)

    def OnProcessInput(self, message_input):
        return None

    @staticmethod
    def getAdapterType():
        return None


class BusinessOperation(_MessageHandler):
    """Handles requests, typically by talking to an outside system."""

    def on_keepalive(self):
        adapter = getattr(self, 'adapter', None)
        if adapter is not None and hasattr(adapter, 'on_keepalive'):
            adapter.on_keepalive()

    @staticmethod
    def getAdapterType():
        return None


class BusinessProcess(_MessageHandler):
    """Routes and orchestrates: calls other items, collects their answers, replies."""

    PERSISTENT_PROPERTY_LIST = None

    def send_request_async(self, target, request, description=None, completion_key=None, response_required=True):
        _runtime.op(
            'send_async', target=target, body=request_body(request), description=description,
            completionKey=None if completion_key is None else str(completion_key),
            responseRequired=bool(response_required),
        )

    def SendRequestAsync(self, target, request, response_required=True, completion_key=None, description=None):
        return self.send_request_async(target, request, description, completion_key, response_required)

    def reply(self, response):
        _runtime.op('reply', body=serialize(response))

    def set_timer(self, timeout, completion_key=None):
        _runtime.op('set_timer', timeoutMs=_duration_ms(timeout), completionKey=None if completion_key is None else str(completion_key))

    def on_response(self, request, response, call_request, call_response, completion_key):
        return self.OnResponse(request, response, call_request, call_response, completion_key)

    def OnResponse(self, request, response, call_request, call_response, completion_key):
        return response

    def on_complete(self, request, response):
        return self.OnComplete(request, response)

    def OnComplete(self, request, response):
        return response


class InboundAdapter(_Common):
    """Hosted in its service's worker: each poll of the service calls `on_task`, which hands input
    to the service through `self.business_host.ProcessInput(...)`."""

    def on_task(self):
        return self.OnTask()

    def OnTask(self):
        return None


class OutboundAdapter(_Common):
    """Hosted in its operation's worker as `self.adapter`; `on_keepalive` runs every KeepaliveInterval."""

    def on_keepalive(self):
        return None


class DuplexService(BusinessService):
    pass


class DuplexOperation(BusinessOperation):
    pass


class DuplexProcess(BusinessProcess):
    pass
