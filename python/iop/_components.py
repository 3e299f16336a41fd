"""The component base classes user code subclasses.

Default handlers chain through the legacy CamelCase spellings so that code overriding either one
works: on_message -> OnMessage -> on_request -> OnRequest.
"""
import inspect
import re
import warnings

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


def _warn_default(cls, what, ignored='the call'):
    warnings.warn(
        f'{cls.__name__} did not override {what}; {ignored} was ignored. '
        'This default no-op handler will raise NotImplementedError in IoP v5.0.',
        RuntimeWarning,
        stacklevel=3,
    )


def _accepting_optional_input(function):
    """IoP 4 calls an `on_process_input(self)` written without a parameter without argument."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return function
    if len(parameters) != 1 or parameters[0].kind not in (parameters[0].POSITIONAL_ONLY, parameters[0].POSITIONAL_OR_KEYWORD):
        return function

    def on_process_input(self, message_input=None):
        return function(self)

    on_process_input.__wrapped__ = function
    on_process_input.__name__ = function.__name__
    on_process_input.__qualname__ = function.__qualname__
    return on_process_input


class BusinessService(_BusinessHost):
    """Receives input from outside (an adapter, a poll every CallInterval, or user code).

    IoP 4: on_process_input(message_input) delegates to on_message(request); the 3.6 spelling
    OnProcessInput stays in the chain so code overriding either keeps working."""

    _wait_for_next_call_interval = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get('on_process_input')
        if inspect.isfunction(own):
            cls.on_process_input = _accepting_optional_input(own)

    def on_process_input(self, message_input=None):
        return self.OnProcessInput(message_input)

    def OnProcessInput(self, message_input):
        return self.on_message(message_input)

    def on_message(self, request=None):
        _warn_default(type(self), 'on_message() or on_process_input()')
        return None

    @staticmethod
    def getAdapterType():
        return None


class BusinessOperation(_MessageHandler):
    """Handles requests, typically by talking to an outside system."""

    def OnRequest(self, request):
        _warn_default(type(self), 'on_message()')
        return None

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
        from ._business_host import target_name

        target = target_name(target)
        description = self._description(target, description)
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


class PollingBusinessService(BusinessService):
    """A service the engine calls every CallInterval (Adapter setting, default 5 s): each call runs
    one bounded `on_poll()` cycle."""

    @staticmethod
    def get_adapter_type():
        return 'Ens.InboundAdapter'

    def on_process_input(self, message_input=None):
        return self.on_poll()

    def on_poll(self):
        _warn_default(type(self), 'on_poll() or on_process_input()', 'the scheduled poll')
        return None


def __getattr__(name):
    # The duplex classes derive from the ones above; made on first use (most workers need none).
    if name in ('DuplexOperation', 'DuplexProcess', 'DuplexService'):
        from . import _duplex

        return getattr(_duplex, name)
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
