"""The worker's main loop: one component instance (plus its Python adapter, if any) per process.

The main thread takes frames from the channel's inbox one at a time and runs the matching hook;
user code runs on it, and blocks on it when it sends synchronously while the reader thread keeps
receiving. See docs/python-bridge.md for the protocol.
"""
import importlib
import json
import os
import queue
import sys
import traceback

from iop import _runtime
from iop._business_host import GENERATOR_ACK, GENERATOR_POLL, GENERATOR_START, GENERATOR_STOP
from iop._components import BusinessOperation, BusinessService, InboundAdapter, adapter_type_of
from iop._dispatch import find_handler
from iop._serialization import deserialize, serialize
from iop._settings import apply_settings

from .channel import PROTOCOL_VERSION
from .failure import failure_of


class HookError(Exception):
    """A step of a request failed; `failure` is already the structured failure to send."""

    def __init__(self, failure):
        super().__init__(failure['message'])
        self.failure = failure


_HOOK_METHODS = {'message': 'on_message', 'process_input': 'on_process_input', 'response': 'on_response', 'complete': 'on_complete'}


def _protocol_error(message, step):
    return HookError({'type': 'ProtocolError', 'message': message, 'traceback': '', 'userFrame': None, 'step': step})


def _add_classpaths(classpaths):
    for path in reversed([p for p in classpaths if p]):
        path = os.path.abspath(path)
        if path in sys.path:
            sys.path.remove(path)
        sys.path.insert(0, path)


def _split_classpaths(text):
    """IoP separates classpaths with `|` or the OS path separator."""
    return [part.strip() for part in text.replace('|', os.pathsep).split(os.pathsep) if part.strip()]


def _check_message(frame):
    """Decodes a body exactly as a component's worker would (its classpaths first): raises why not."""
    _add_classpaths(frame['classpaths'])
    deserialize(frame['body'])
    return None


def _load(module_name, class_name, classpaths):
    _add_classpaths(classpaths)
    module = importlib.import_module(module_name)
    try:
        return getattr(module, class_name)
    except AttributeError:
        raise ImportError(f'module {module_name!r} has no class {class_name!r}') from None


class _BusinessHostHandle:
    """What an inbound adapter sees as `self.business_host`: IoP's host object, whose ProcessInput
    runs the service's on_process_input."""

    def __init__(self, service):
        self._service = service

    def ProcessInput(self, message_input):
        return self._service.on_process_input(message_input)

    process_input = ProcessInput
    OnProcessInput = ProcessInput

    def __getattr__(self, name):
        return getattr(self._service, name)


class WorkerHost:
    def __init__(self, channel):
        self.channel = channel
        self.instance = None
        self.adapter = None
        self.class_name = ''
        self.keepalive_seconds = None
        self._generator = None

    # --- loop -----------------------------------------------------------------------------------
    def run(self):
        self.channel.send({'t': 'hello', 'protocol': PROTOCOL_VERSION, 'pid': os.getpid(), 'python': sys.version.split()[0]})
        while True:
            try:
                frame = self.channel.inbox.get(timeout=self.keepalive_seconds)
            except queue.Empty:
                self._keepalive()
                continue
            if frame is None:
                return
            kind = frame.get('t')
            if kind == 'teardown':
                self._answer(frame, 'on_tear_down', self._teardown)
                return
            if kind == 'invoke':
                self._answer(frame, _HOOK_METHODS.get(frame.get('hook'), 'invoke'), self._invoke, frame)
            elif kind == 'init':
                self._answer(frame, 'init', self._init, frame)
            elif kind == 'dtl':
                # Imported when first asked: component workers do not pay for the DTL or migration code.
                from conveyor_dtl.evaluate import run_dtl_python
                self._answer(frame, 'dtl', lambda: run_dtl_python(frame))
            elif kind == 'migrate':
                from conveyor_migrate.script import read_settings
                self._answer(frame, 'migrate', lambda: read_settings(frame['path'], bool(frame.get('strict'))))
            elif kind == 'check_message':
                self._answer(frame, 'deserialize', lambda: _check_message(frame))
            elif 'id' in frame:
                self._answer(frame, 'protocol', lambda: self._unknown(kind))

    def _unknown(self, kind):
        raise _protocol_error(f'this worker does not handle {kind!r} frames', 'protocol')

    def _answer(self, frame, step, action, *args):
        """Runs one request, `action(*args)`, and sends its result, or its failure (anything, even SystemExit)."""
        try:
            value = action(*args)
        except HookError as error:
            self._fail(frame, error.failure)
            return
        except BaseException as error:
            self._fail(frame, failure_of(error, step))
            return
        try:
            self.channel.send({'t': 'result', 'id': frame['id'], 'value': value})
        except (TypeError, ValueError) as error:  # a value JSON cannot carry
            self._fail(frame, failure_of(error, step))

    def _fail(self, frame, failure):
        self.channel.send({'t': 'failure', 'id': frame['id'], 'failure': failure})

    def _run_hook(self, name, function, *args):
        try:
            return function(*args)
        except BaseException as error:
            raise HookError(failure_of(error, name)) from error

    # --- init -----------------------------------------------------------------------------------
    def _init(self, frame):
        _runtime.attach(self.channel, frame.get('configName', ''))
        previous = _runtime.link.enter_call(None)
        try:
            settings = frame.get('settings') or {}
            host_settings = settings.get('host') or {}
            # IoP's item-level overrides of the registered class: %module, %classname, %classpaths.
            module = host_settings.get('%module') or frame['module']
            class_name = host_settings.get('%classname') or frame['className']
            classpaths = list(frame.get('classpaths') or []) + _split_classpaths(host_settings.get('%classpaths', ''))
            cls = self._run_hook('import', _load, module, class_name, classpaths)
            self.class_name = cls.__name__
            self.instance = cls.__new__(cls)
            apply_settings(self.instance, host_settings, self._warn)
            if not hasattr(self.instance, 'adapter'):
                # Built-in adapters live in the engine: user code sees no adapter object.
                self.instance.adapter = self.instance.Adapter = None
            adapter_spec = frame.get('adapter')
            if adapter_spec:
                self._init_adapter(adapter_spec, settings.get('adapter') or {})
            if isinstance(self.instance, BusinessService):
                _runtime.link.services[frame.get('configName', '')] = self.instance
            self._connect(self.instance)
            return {'className': self.class_name, 'adapterType': adapter_type_of(self.instance) if isinstance(self.instance, (BusinessService, BusinessOperation)) else None}
        finally:
            _runtime.link.leave_call(previous)

    def _init_adapter(self, spec, adapter_settings):
        adapter_cls = self._run_hook('import', _load, spec['module'], spec['className'], spec.get('classpaths') or [])
        adapter = adapter_cls.__new__(adapter_cls)
        apply_settings(adapter, adapter_settings, self._warn)
        adapter.business_host_python = self.instance
        adapter.business_host = adapter.BusinessHost = _BusinessHostHandle(self.instance) if isinstance(adapter, InboundAdapter) else self.instance
        self.instance.adapter = self.instance.Adapter = adapter
        self.adapter = adapter
        interval = adapter_settings.get('KeepaliveInterval') or ''
        if not isinstance(adapter, InboundAdapter) and interval.strip() not in ('', '0'):
            self.keepalive_seconds = float(interval)
        self._connect(adapter)

    def _connect(self, component):
        try:
            component.on_connected()
        except Exception as error:  # IoP: a failing on_connected is a warning, the start goes on
            self._warn(f'on_connected failed: {type(error).__name__}: {error}')
        self._run_hook('on_init', component.on_init)

    def _warn(self, text):
        _runtime.emit_log('Warning', text, self.class_name, 'on_init')

    # --- hooks ----------------------------------------------------------------------------------
    # The hot path (a request or a service's input, its answer) catches each step's failure where it
    # runs instead of calling through _run_hook: the same failure (type, message, user frame, step),
    # two Python calls fewer per step.
    def _invoke(self, frame):
        args = frame.get('args') or {}
        link = _runtime.link
        previous = link.enter_call(frame.get('call'))
        try:
            hook = frame['hook']
            if hook == 'message':
                return self._on_message(args)
            if hook == 'process_input':
                return self._on_process_input(args)
            request = self._request(args)
            response = self._run_hook('deserialize', deserialize, args.get('response'), True)
            if hook == 'response':
                call_request = self._run_hook('deserialize', deserialize, args.get('callRequest'), True)
                call_response = self._run_hook('deserialize', deserialize, args.get('callResponse'), True)
                result = self._run_hook('on_response', self.instance.on_response, request, response, call_request, call_response, args.get('completionKey'))
            elif hook == 'complete':
                result = self._run_hook('on_complete', self.instance.on_complete, request, response)
            else:
                raise _protocol_error(f'unknown hook {hook!r}', 'invoke')
            return self._serialize(result)
        finally:
            link.leave_call(previous)

    def _request(self, args):
        # Lazily: a large request the component only passes on is never decoded (iop/_stand_ins.py).
        try:
            request = deserialize(args.get('request'), True)
        except BaseException as error:
            raise HookError(failure_of(error, 'deserialize')) from error
        message_id = args.get('messageId')
        if request is not None and message_id is not None:
            try:
                request._iris_id = message_id
            except AttributeError:  # slotted or frozen messages simply do not learn their id
                pass
        return request

    def _on_message(self, args):
        body = args.get('request') or {}
        classname = body.get('classname')
        if classname == GENERATOR_START:
            inner = json.loads(body['data'])['body']
            request = self._run_hook('deserialize', deserialize, inner, True)
            result = self._run_hook('on_message', lambda: find_handler(self.instance, request)(request))
            try:
                self._generator = iter(result)
            except TypeError:
                raise HookError(failure_of(TypeError('Expected a generator or iterable object from the handler of a generator request'), 'on_message')) from None
            return {'classname': GENERATOR_ACK, 'encoding': 'native', 'data': '{}'}
        if classname == GENERATOR_POLL:
            return self._poll_generator()
        request = self._request(args)
        try:
            result = find_handler(self.instance, request)(request)
        except BaseException as error:
            raise HookError(failure_of(error, 'on_message')) from error
        return self._serialize(result)

    def _poll_generator(self):
        stop = {'classname': GENERATOR_STOP, 'encoding': 'native', 'data': '{}'}
        if self._generator is None:
            return stop
        try:
            item = self._run_hook('on_message', next, self._generator)
        except HookError as error:
            if error.failure['type'] == 'StopIteration':
                self._generator = None
                return stop
            raise
        return self._serialize(item)

    def _on_process_input(self, args):
        message_input = args.get('input')
        if message_input is None and isinstance(self.adapter, InboundAdapter):
            self._run_hook('on_task', self.adapter.on_task)
            return None
        try:
            value = deserialize(message_input, True)
        except BaseException as error:
            raise HookError(failure_of(error, 'deserialize')) from error
        try:
            result = self.instance.on_process_input(value)
        except BaseException as error:
            raise HookError(failure_of(error, 'on_process_input')) from error
        return self._serialize(result)

    def _serialize(self, value):
        try:
            return serialize(value)
        except BaseException as error:
            raise HookError(failure_of(error, 'serialize')) from error

    def _keepalive(self):
        try:
            self.instance.on_keepalive()
        except Exception as error:
            _runtime.emit_log('Error', f'on_keepalive failed: {type(error).__name__}: {error}\n{traceback.format_exc()}', self.class_name, 'on_keepalive')

    def _teardown(self):
        failures = []
        for component in (self.adapter, self.instance):
            if component is None:
                continue
            try:
                component.on_tear_down()
            except Exception as error:
                failures.append(failure_of(error, 'on_tear_down'))
        if failures:
            raise HookError(failures[0])
        return None
