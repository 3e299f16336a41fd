"""The sending API every business host (service, process, operation) offers.

Targets are item names. Timeouts are in seconds, -1 waits forever. Each call goes to the engine as
an `op` frame of the call being handled, so the engine links the request to its session.
"""
import json

from . import _runtime
from ._common import _Common
from ._serialization import deserialize, serialize

GENERATOR_START = 'IOP.Generator.Message.Start'
GENERATOR_POLL = 'IOP.Generator.Message.Poll'
GENERATOR_ACK = 'IOP.Generator.Message.Ack'
GENERATOR_STOP = 'IOP.Generator.Message.Stop'

_EMPTY_REQUEST = {'classname': 'Ens.Request', 'encoding': 'empty', 'data': ''}


def request_body(request):
    return serialize(request) or _EMPTY_REQUEST


def apply_transform(name, message):
    """Runs the stored DTL transform `name` of the namespace on `message` (in the engine)."""
    return deserialize(_runtime.op('transform', transform=name, body=request_body(message)))


def import_schema(path, package, name):
    """The spec's DTL schema import: a JSON schema file on the server, stored as `name` under `package`."""
    _runtime.op('import_schema', path=str(path), package=package, schema=name)


def timeout_ms(timeout):
    if timeout is None or timeout == -1:
        return -1
    return int(float(timeout) * 1000)


def target_name(target):
    """An item name: a string as given, a TargetSettingRef (IoP 4) resolved through its production."""
    if isinstance(target, str):
        return target
    resolve = getattr(target, 'resolve', None)
    if callable(resolve) and hasattr(target, 'path'):
        return resolve()  # raises ValueError for an unconnected or ambiguous target setting, before any send
    return str(target)


class _BusinessHost(_Common):
    DISPATCH = []

    def _description(self, target, description):
        # IoP 4.1.1: an omitted description names the sender and the target.
        return f'{type(self).__name__} -> {target}' if description is None else description

    def send_request_sync(self, target, request, timeout=-1, description=None):
        # The busiest call of the SDK (a process or service sends on every request it handles):
        # target_name, _description, request_body, timeout_ms and _runtime.op, each inline for the
        # common case, in the same order, so the same errors come first (a bad target, then a
        # message that cannot be sent, a bad timeout, then no worker to send from).
        if not isinstance(target, str):
            target = target_name(target)
        if description is None:
            description = self._description(target, description)
        body = serialize(request) or _EMPTY_REQUEST
        timeout = -1 if timeout == -1 else timeout_ms(timeout)
        link = _runtime.link
        channel = link.channel
        if channel is None:
            _runtime.require_channel('send_sync')
        frame = {'t': 'op', 'op': 'send_sync', 'call': getattr(link._local, 'call', None), 'target': target, 'body': body, 'timeoutMs': timeout, 'description': description}
        return deserialize(channel.request(frame), lazy=True)

    def transform(self, name, message):
        """Applies the stored DTL transform `name` to `message`; returns an instance of its target class."""
        return apply_transform(name, message)

    def send_request_async(self, target, request, description=None):
        target = target_name(target)
        description = self._description(target, description)
        _runtime.op('send_async', target=target, body=request_body(request), description=description, completionKey=None, responseRequired=False)

    async def send_request_async_ng(self, target, request, timeout=-1, description=None):
        import asyncio  # only code that awaits pays for importing asyncio

        target = target_name(target)
        description = self._description(target, description)
        loop = asyncio.get_running_loop()
        future = loop.create_future()

        def settle(ok, value):
            loop.call_soon_threadsafe(_settle, future, ok, value)

        _runtime.op_async('send_sync', settle, target=target, body=request_body(request), timeoutMs=timeout_ms(timeout), description=description)
        return deserialize(await future, lazy=True)

    def send_multi_request_sync(self, target_request, timeout=-1, description=None):
        if not isinstance(target_request, list):
            raise TypeError('send_multi_request_sync takes a list of (target, request) tuples')
        if not target_request:
            raise ValueError('send_multi_request_sync needs at least one (target, request) tuple')
        calls = []
        for pair in target_request:
            if not isinstance(pair, tuple) or len(pair) != 2:
                raise TypeError('each entry of send_multi_request_sync must be a (target, request) tuple')
            calls.append({'target': target_name(pair[0]), 'body': request_body(pair[1])})
        replies = _runtime.op('send_multi', calls=calls, timeoutMs=timeout_ms(timeout), description=description)
        return [
            (target, request, deserialize(reply['response'], lazy=True), reply['status'])
            for (target, request), reply in zip(target_request, replies)
        ]

    def send_generator_request(self, target, request, timeout=-1, description=None):
        target = target_name(target)
        description = self._description(target, description)
        start = {'classname': GENERATOR_START, 'encoding': 'native', 'data': json.dumps({'body': request_body(request)}, ensure_ascii=False)}
        ack = _runtime.op('send_sync', target=target, body=start, timeoutMs=timeout_ms(timeout), description=description)
        if not ack or ack.get('classname') != GENERATOR_ACK:
            raise RuntimeError('Failed to send request, no acknowledgment received.')
        return self._poll_generator(target, timeout, description)

    def _poll_generator(self, target, timeout, description):
        poll = {'classname': GENERATOR_POLL, 'encoding': 'native', 'data': '{}'}
        while True:
            reply = _runtime.op('send_sync', target=target, body=poll, timeoutMs=timeout_ms(timeout), description=description)
            if reply is None or reply.get('classname') == GENERATOR_STOP:
                return
            yield deserialize(reply, lazy=True)

    # legacy CamelCase spellings
    def SendRequestSync(self, target, request, timeout=-1, description=None):
        return self.send_request_sync(target, request, timeout, description)

    def SendRequestAsync(self, target, request, description=None):
        return self.send_request_async(target, request, description)

    @staticmethod
    def OnGetConnections():
        return None


def _settle(future, ok, value):
    if future.done():
        return
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)  # the channel's EngineError, a RuntimeError with the engine's code
