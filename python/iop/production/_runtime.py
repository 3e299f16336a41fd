"""Runtime helpers of a Production (start, stop, status, queues, test, component control) and the
director choice: explicit, else remote when IOP_URL / IOP_SETTINGS ask for it, else the local home."""
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


def _current_name(director):
    status = director.status_production() or {}
    return status.get('Production') or status.get('production') or ''


def _require_current(production, action):
    director = _director(production)
    current = _current_name(director)
    if current != production.name:
        raise RuntimeError(
            f"Cannot {action} production '{production.name}': current/default production is '{current or 'none'}'. "
            f"Start '{production.name}' first, or use the production that is running."
        )
    return director


def start(self, detach=True):
    director = _director(self)
    if detach:
        return director.start_production(self.name)
    return director.start_production_with_log(self.name)


def stop(self):
    return _require_current(self, 'stop').stop_production()


def restart(self):
    return _require_current(self, 'restart').restart_production()


def kill(self):
    return _require_current(self, 'kill').shutdown_production()


def update(self):
    return _require_current(self, 'update').update_production()


def status(self):
    return _director(self).status_production()


def queue(self):
    answer = _director(self).export_production_queue_info(self.name) or {}
    return {entry.get('item'): {key: entry.get(key) for key in ('queue_name', 'class_name', 'exists', 'count')}
            for entry in answer.get('items', []) if isinstance(entry, dict)}


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
    return self.item(str(target)).name


def start_component(self, component):
    return _require_current(self, 'start a component of').start_component(_item_name(self, component))


def stop_component(self, component):
    return _require_current(self, 'stop a component of').stop_component(_item_name(self, component))


def restart_component(self, component):
    return _require_current(self, 'restart a component of').restart_component(_item_name(self, component))


def test_component(self, target, message=None, classname=None, body=None):
    name = _item_name(self, target)
    director = _require_current(self, 'test a component of')
    return director.test_component(name, message=message, classname=classname, body=body)


def inspect_component(self, component, *, refresh=True):
    from ._diff import item_signature

    ref = self.component_ref(component)
    data = {'name': ref.name, 'kind': ref.kind, 'adapter_class_name': ref.adapter_class_name, **item_signature(ref)}
    data['edges'] = [edge.to_dict() for edge in self.edges if edge.source_item == ref.name or edge.target == ref.name]
    if refresh:
        try:
            director = _director(self)
            data['runtime'] = {'status': director.status_production(), 'queue': queue(self).get(ref.name)}
        except Exception as error:  # inspection works offline; the runtime part says why it is missing
            data['runtime'] = {'error': str(error)}
    return data


def install_runtime_methods(cls):
    for function in (start, stop, restart, kill, update, status, queue, export, set_default, log, start_component, stop_component,
                     restart_component, test_component, inspect_component):
        setattr(cls, function.__name__, function)
    cls.queue_info = queue
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
    path = os.path.join(folder, 'settings.py')
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
