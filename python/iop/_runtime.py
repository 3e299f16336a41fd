"""The link between SDK objects and the worker host that runs them.

Outside a Conveyor worker (a unit test importing user classes, the migration script) there is no
channel: logging falls back to stderr and sending raises a clear error.
"""
import sys
import threading


class NotInWorkerError(RuntimeError):
    pass


class _Link:
    def __init__(self):
        self.channel = None
        self.config_name = ''
        # Services hosted by this worker, by item name (Director.get_business_service).
        self.services = {}
        self._local = threading.local()

    @property
    def current_call(self):
        """The engine's key of the call the current thread is handling, or None."""
        return getattr(self._local, 'call', None)

    def enter_call(self, call_key):
        local = self._local
        previous = getattr(local, 'call', None)  # current_call, without the property's call: once per request
        local.call = call_key
        return previous

    def leave_call(self, previous):
        self._local.call = previous


link = _Link()


def attach(channel, config_name):
    link.channel = channel
    link.config_name = config_name


def op(name, **fields):
    """Asks the engine to do something for the current call and waits for the answer."""
    channel = require_channel(name)
    frame = {'t': 'op', 'op': name, 'call': link.current_call}
    frame.update(fields)
    return channel.request(frame)


def op_async(name, callback, **fields):
    channel = require_channel(name)
    frame = {'t': 'op', 'op': name, 'call': link.current_call}
    frame.update(fields)
    channel.request_async(frame, callback)


def emit_log(log_type, text, source_class, source_method, to_console=False):
    channel = link.channel
    if channel is None or channel.closed:
        sys.stderr.write(f'{log_type} {source_class}.{source_method}: {text}\n')
        return
    channel.send({
        't': 'log',
        'call': link.current_call,
        'type': log_type,
        'text': text,
        'sourceClass': source_class,
        'sourceMethod': source_method,
        'console': bool(to_console),
    })


def require_channel(what):
    if link.channel is None:
        raise NotInWorkerError(f'{what} needs a running Conveyor worker: this code is not running inside a production')
    return link.channel
