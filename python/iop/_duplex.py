"""Duplex private sessions (IoP's DuplexService / DuplexOperation and DuplexProcess), on Conveyor's messages.

IoP runs them on IRIS private-session queues: the duplex host opens a session with an async `Start`
to its `DuplexTargetConfigName` item, and the process answers documents through deferred replies to
its `Poll` requests. Conveyor has no deferred replies, so the same hooks run on plain async messages:
`send_document_to_process(doc)` opens the session once (`on_private_session_started(self, 1)`), then
sends the document itself, wrapped in an `IOP.PrivateSession.Message.Document` carrying the sender's
item name; the process unwraps it and calls `on_document(source, doc)`. `Start` calls the process's
`on_private_session_started(source, 0)`, `Stop` (sent when the duplex host tears down, or by
`stop_private_session()`) its `on_private_session_stopped(source, 0, attached)`. What the process sends
back to the duplex item are ordinary requests: they reach its `on_message`.
"""
import inspect
import json

import iris

from . import _runtime
from ._business_host import request_body
from ._serialization import deserialize

START = 'IOP.PrivateSession.Message.Start'
STOP = 'IOP.PrivateSession.Message.Stop'
POLL = 'IOP.PrivateSession.Message.Poll'
ACK = 'IOP.PrivateSession.Message.Ack'
DOCUMENT = 'IOP.PrivateSession.Message.Document'
SESSION_CLASSES = frozenset({START, STOP, POLL, DOCUMENT})


def _native(classname, **properties):
    return {'classname': classname, 'encoding': 'native', 'data': json.dumps(properties, ensure_ascii=False)}


def private_session_classname(message):
    """The private-session message class of a received request, or None."""
    if not iris.is_native(message):
        return None
    name = type(message).__name__
    return name if name in SESSION_CLASSES else None


class _DuplexHost:
    """The duplex side (service or operation) of a private session."""

    DuplexTargetConfigName = ''
    _in_private_session = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get('on_tear_down')
        if own is not None and not getattr(own, '_stops_private_session', False):
            def on_tear_down(self, _user=own):
                self.stop_private_session()
                return _user(self)

            on_tear_down._stops_private_session = True
            cls.on_tear_down = on_tear_down

    def _duplex_target(self):
        target = str(getattr(self, 'DuplexTargetConfigName', '') or '').strip()
        if not target:
            raise ValueError(f'{type(self).__name__}: set the Host setting DuplexTargetConfigName to the process of the private session')
        return target

    def start_private_session(self):
        if self._in_private_session:
            return
        target = self._duplex_target()
        _runtime.op('send_async', target=target, body=_native(START, Source=_runtime.link.config_name), description=None, completionKey=None, responseRequired=False)
        self._in_private_session = True
        self.on_private_session_started(self, 1)

    def send_document_to_process(self, document):
        self.start_private_session()
        body = _native(DOCUMENT, Source=_runtime.link.config_name, Document=request_body(document))
        _runtime.op('send_async', target=self._duplex_target(), body=body, description=None, completionKey=None, responseRequired=False)

    def stop_private_session(self, attached_message=None):
        if not self._in_private_session:
            return
        attached = None if attached_message is None else request_body(attached_message)
        try:
            _runtime.op('send_async', target=self._duplex_target(), body=_native(STOP, Source=_runtime.link.config_name, AttachedMessage=attached), description=None, completionKey=None, responseRequired=False)
        finally:
            self._in_private_session = False
        self.on_private_session_stopped(self, 1, attached_message)

    def on_tear_down(self):
        self.stop_private_session()
        return None

    on_tear_down._stops_private_session = True

    def on_private_session_started(self, source_config_name, self_generated):
        return None

    def on_private_session_stopped(self, source_config_name, self_generated, message):
        return None


class _DuplexProcessSide:
    """The process side: session messages go to the private-session hooks before any dispatch."""

    def _on_private_session_message(self, message):
        kind = type(message).__name__
        source = getattr(message, 'Source', '') or ''
        if kind == START:
            self.on_private_session_started(source, 0)
            return iris.cls(ACK)()
        if kind == STOP:
            attached = getattr(message, 'AttachedMessage', None)
            self.on_private_session_stopped(source, 0, deserialize(attached) if attached else None)
            return None
        if kind == DOCUMENT:
            return self.on_document(source, deserialize(getattr(message, 'Document', None)))
        return None  # a Poll: documents arrive as messages here, nothing is waiting

    def on_document(self, source_config_name, request):
        return None

    def on_private_session_started(self, source_config_name, self_generated):
        return None

    def on_private_session_stopped(self, source_config_name, self_generated, message):
        return None


def _define_classes():
    from ._components import BusinessOperation, BusinessProcess, BusinessService, _accepting_optional_input

    class DuplexService(_DuplexHost, BusinessService):
        pass

    class DuplexOperation(_DuplexHost, BusinessOperation):
        """An operation with an inbound side: with an inbound adapter type (`Ens.InboundAdapter`, or a
        Python InboundAdapter whose on_task calls `business_host.ProcessInput`), the engine calls
        `on_process_input(None)` every CallInterval between its messages, as IRIS polls a business duplex."""

        def __init_subclass__(cls, **kwargs):
            super().__init_subclass__(**kwargs)
            own = cls.__dict__.get('on_process_input')
            if inspect.isfunction(own):
                cls.on_process_input = _accepting_optional_input(own)

        def on_process_input(self, message_input=None):
            return None

    class DuplexProcess(_DuplexProcessSide, BusinessProcess):
        pass

    return DuplexService, DuplexOperation, DuplexProcess


DuplexService, DuplexOperation, DuplexProcess = _define_classes()
