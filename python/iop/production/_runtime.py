"""Runtime helpers of a Production (start, stop, status, queues, test, component control) and the
director choice: explicit, else remote when IOP_URL / IOP_SETTINGS ask for it, else the local home."""
import json
import os
import sys
import tempfile


def resolve_director(director=None, namespace=None):
    if director is not None:
        return director
    from ..runtime.director import default_director

    return default_director(namespace)


def _director(production):
    return resolve_director(production._director, production.namespace)


def _status(director, action):
    try:
        status = director.status_production()
    except Exception as error:
        raise RuntimeError(f'Cannot {action}: could not verify production status ({error}).') from error
    if not isinstance(status, dict):
        raise RuntimeError(f'Cannot {action}: production status response is invalid ({status!r}).')
    name = status.get('Production') or status.get('production') or ''
    state = status.get('Status') or status.get('status') or ''
    return str(name), str(state)


def _require_runtime(production, action):
    """The director, once its status shows this production as the current one."""
    director = _director(production)
    name, state = _status(director, action)
    if name == production.name:
        return director
    if name:
        detail = f'current/default production is {name!r}'
    elif state:
        detail = f'current status is {state!r}'
    else:
        detail = 'runtime status did not report a current/default production'
    raise RuntimeError(
        f'Cannot {action}: {detail}. Select {production.name!r} with `prod.set_default()` or start it with '
        '`prod.start()` before using this lifecycle method.'
    )


def _require_running(production, director):
    name, state = _status(director, 'test')
    if name == production.name and state.lower() == 'running':
        return
    if name and name != production.name and state.lower() == 'running':
        raise RuntimeError(
            f'Production {production.name!r} exists but is not running (currently running production is {name!r}). '
            f'Only one production runs per namespace. Stop {name!r} first with `iop --stop`, then start {production.name!r} '
            f'with `iop --start {production.name} --detach` or `prod.start()`. Do that before calling `prod.test(...)`.'
        )
    if name and name != production.name:
        detail = f'current default production is {name!r}'
    elif state:
        detail = f'current status is {state!r}'
    else:
        detail = 'runtime status did not report a running production'
    raise RuntimeError(
        f'Production {production.name!r} exists but is not running ({detail}). Start it with '
        f'`iop --start {production.name} --detach` or `prod.start()` before calling `prod.test(...)`.'
    )


def start(self, detach=True):
    director = _director(self)
    if detach:
        return director.start_production(self.name)
    return director.start_production_with_log(self.name)


def stop(self):
    return _require_runtime(self, f'stop production {self.name!r}').stop_production()


def restart(self):
    return _require_runtime(self, f'restart production {self.name!r}').restart_production()


def kill(self):
    return _require_runtime(self, f'kill production {self.name!r}').shutdown_production()


def update(self):
    return _require_runtime(self, f'update production {self.name!r}').update_production()


def status(self):
    return _director(self).status_production()


def queue(self, *, refresh=True):
    if refresh:
        answer = _director(self).export_production_queue_info(self.name) or {}
        entries = answer.get('items', []) if isinstance(answer, dict) else []
        self._queue_info = {entry.get('item'): {k: v for k, v in entry.items() if k != 'item'} for entry in entries if isinstance(entry, dict)}
    return {name: dict(value) for name, value in self._queue_info.items()}


def export(self):
    return _director(self).export_production(self.name)


def set_default(self):
    return _director(self).set_default_production(self.name)


def log(self, top=None):
    director = _director(self)
    return director.log_production() if top is None else director.log_production_top(top)


def _item_name(self, target):
    from ._refs import ComponentRef, TargetSettingRef

    if isinstance(target, TargetSettingRef):
        return self.resolve_target_setting_ref(target)
    if isinstance(target, ComponentRef):
        return self._component_name(target)
    return self.resolve_target(str(target))


def start_component(self, component):
    name = _item_name(self, component)
    return _require_runtime(self, f'start component {name!r} in production {self.name!r}').start_component(name)


def stop_component(self, component):
    name = _item_name(self, component)
    return _require_runtime(self, f'stop component {name!r} in production {self.name!r}').stop_component(name)


def restart_component(self, component):
    name = _item_name(self, component)
    return _require_runtime(self, f'restart component {name!r} in production {self.name!r}').restart_component(name)


def test_component(self, target, message=None, classname=None, body=None):
    name = self.resolve_target(target)
    director = _director(self)
    _require_running(self, director)
    if classname is None and body is None and message is not None:
        from ..runtime._rest import message_to_classname_body

        classname, body = message_to_classname_body(message)
        if classname is not None:
            message = None
            body = json.dumps(body)  # IoP's directors take the body as JSON text (the spec's /test accepts both)
    return director.test_component(name, message=message, classname=classname, body=body)


def inspect_component(self, component, *, refresh=True):
    """An item's fields and settings, its incoming and outgoing edges, and (refresh) its runtime state."""
    from ._diff import item_signature

    ref = self.component_ref(component)
    data = {'production': self.name, 'name': ref.name, 'kind': ref.kind, 'adapter_class_name': ref.adapter_class_name, **item_signature(ref)}
    data['incoming'] = [edge.to_dict() for edge in self.edges if edge.target == ref.name]
    data['outgoing'] = [edge.to_dict() for edge in self.edges if edge.source_item == ref.name]
    runtime = {'metadata': dict(ref.runtime_metadata)}
    if refresh:
        try:
            name, state = _status(_director(self), 'inspect')
            runtime['status'] = state
            runtime['is_running'] = name == self.name and state.lower() == 'running'
            runtime['queue'] = queue(self).get(ref.name)
        except Exception as error:  # inspection works offline; the runtime part says why it is missing
            runtime['error'] = str(error)
    else:
        runtime['queue'] = self._queue_info.get(ref.name)
    data['runtime'] = runtime
    return data


def install_runtime_methods(cls):
    for function in (start, stop, restart, kill, update, status, queue, export, set_default, log, start_component, stop_component,
                     restart_component, test_component, inspect_component):
        setattr(cls, function.__name__, function)
    cls.queue_info = queue
    cls._runtime_component_name = _item_name
    cls.test = test_component


def register_production_classes(production, director, *, root_path=None):
    """Registers the Python classes the production's items name (their class_name), as a migration does."""
    registrations = [ref for ref in production.component_registrations()] + [ref for ref in production.adapter_registrations()]
    if not registrations or not hasattr(director, 'migrate') or getattr(director, 'is_remote', False):
        return None
    entries = {}
    for ref in production.component_registrations():
        entries[ref.class_name] = ref.component_class
    for ref in production.adapter_registrations():
        entries[ref.adapter_class_name] = ref.adapter_class
    return register_classes(entries, director, root_path=root_path)


def register_classes(entries, director, *, root_path=None):
    """`{registered name: class}` -> a generated settings file migrated in place (the server's way of
    registering classes), each class imported from its module's import root."""
    lines = ['# Generated by iop (Conveyor) to register component classes.', 'CLASSES = {']
    for name, component_class in entries.items():
        module = sys.modules.get(component_class.__module__)
        root = root_path or _import_root(module, component_class.__module__)
        lines.append(f'    {name!r}: {{"module": {component_class.__module__!r}, "class": {component_class.__qualname__!r}, "path": {root!r}}},')
    lines.append('}')
    folder = tempfile.mkdtemp(prefix='iop-register-')
    path = os.path.join(folder, 'iop_class_registration.py')  # not `settings`: user code may import its own
    with open(path, 'w', encoding='utf-8') as out:
        out.write('\n'.join(lines) + '\n')
    try:
        return director.migrate(path)
    finally:
        try:
            os.remove(path)
            os.rmdir(folder)
        except OSError:
            pass


def _import_root(module, module_name):
    path = getattr(module, '__file__', None)
    if not path:
        return os.getcwd()
    root = os.path.dirname(os.path.abspath(path))
    depth = module_name.count('.')
    if os.path.basename(path) == '__init__.py':
        depth += 1
    for _ in range(depth):
        root = os.path.dirname(root)
    return root


def sync_production(production, *, root_path=None, update=True):
    """Writes the whole production (classes, then definition) and updates it when it runs."""
    director = _director(production)
    register_production_classes(production, director, root_path=root_path)
    return director.apply_production_definition(production.to_dict(), allow_destructive=True, update=update)
