"""The Director calls user code makes from inside a production.

`get_business_service(name)` hands back a service running in this worker so that user code (a
thread serving HTTP started in `on_init`, say) can push input to it: each push opens its own call,
hence its own session, as a message arriving from outside would.
"""
from . import _runtime


class _ServiceEntry:
    def __init__(self, service):
        self._service = service

    def on_process_input(self, message_input):
        if _runtime.link.current_call is not None:
            return self._service.on_process_input(message_input)
        call_key = _runtime.op('new_call')
        previous = _runtime.link.enter_call(call_key)
        try:
            return self._service.on_process_input(message_input)
        finally:
            _runtime.op('end_call')
            _runtime.link.leave_call(previous)

    ProcessInput = on_process_input
    OnProcessInput = on_process_input

    def __getattr__(self, name):
        return getattr(self._service, name)


class Director:
    def get_business_service(self, target, force_session_id=False):
        service = _runtime.link.services.get(target)
        if service is None:
            raise RuntimeError(
                f'No business service named {target!r} runs in this worker: Director.get_business_service '
                'reaches the service hosted by the calling worker; other items are reached by sending them messages'
            )
        return _ServiceEntry(service)

    @staticmethod
    def create_python_business_service(target):
        return Director().get_business_service(target)

    @staticmethod
    def create_business_service(target):
        return Director().get_business_service(target)


def __getattr__(name):
    # IoP 3.6's `from iop._director import _Director` (the class facade of the Director functions).
    if name == '_Director':
        from .runtime.director import _Director

        return _Director
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
