"""`Production`: a production written as Python code (IoP 4's DSL).

Items are ComponentRefs; routes are target settings (a Host setting naming the target items) recorded
as graph edges. `to_dict()` gives IoP's export shape; validate / diff / plan / apply / verify /
rollback and the runtime helpers work through a director (the home's Conveyor server by default).
"""
import copy

from ..components.settings import TargetSetting
from . import _render
from ._common import (
    PRODUCTION_SETTING_FIELDS,
    adapter_type_of_class,
    apply_settings_update,
    auto_proxy_class_name,
    normalize_settings,
    split_targets,
)
from ._declarations import hydrate
from ._graph import GraphEdge, GraphNode, ProductionGraph
from ._refs import ComponentRef, PersistentMessageRegistration, TargetSettingRef, target_setting_names_of

_MISSING = object()
_DEFAULTS = {
    'testing_enabled': False, 'log_general_trace_events': False, 'actor_pool_size': 2, 'description': '',
    **{field: default for field, (_, default) in PRODUCTION_SETTING_FIELDS.items()},
}
_CONNECTION_MODES = {'replace': 'replace', 'set': 'replace', 'add': 'add', 'append': 'add', 'remove': 'remove', 'delete': 'remove', 'disconnect': 'remove'}


def connection_mode(mode):
    normalized = _CONNECTION_MODES.get(str(mode).lower())
    if normalized is None:
        raise ValueError(f'Unsupported connection mode: {mode!r}. Use replace, add or remove.')
    return normalized


class Production:
    def __init__(self, name=_MISSING, *, testing_enabled=_MISSING, log_general_trace_events=_MISSING, actor_pool_size=_MISSING,
                 description=_MISSING, shutdown_timeout=_MISSING, update_timeout=_MISSING, alert_notification_manager=_MISSING,
                 alert_notification_operation=_MISSING, alert_notification_recipients=_MISSING, alert_action_window=_MISSING,
                 namespace=_MISSING, director=_MISSING):
        given = dict(
            testing_enabled=testing_enabled, log_general_trace_events=log_general_trace_events, actor_pool_size=actor_pool_size,
            description=description, shutdown_timeout=shutdown_timeout, update_timeout=update_timeout,
            alert_notification_manager=alert_notification_manager, alert_notification_operation=alert_notification_operation,
            alert_notification_recipients=alert_notification_recipients, alert_action_window=alert_action_window,
        )
        self._setup(name, given, namespace, director)
        hydrate(self)

    @classmethod
    def _blank(cls, name, **fields):
        production = object.__new__(cls)
        namespace = fields.pop('namespace', _MISSING)
        director = fields.pop('director', _MISSING)
        Production._setup(production, name, fields, namespace, director)
        return production

    def _setup(self, name, given, namespace, director):
        if name is _MISSING:
            declared = getattr(type(self), 'name', _MISSING)
            name = declared if isinstance(declared, str) else f'{type(self).__module__}.{type(self).__name__}'
        self.name = str(name)
        for field, default in _DEFAULTS.items():
            value = given.get(field, _MISSING)
            if value is _MISSING:
                value = getattr(type(self), field, default)  # a subclass may declare the field as a class attribute
            setattr(self, field, value)
        self.namespace = None if namespace is _MISSING else namespace
        if self.namespace is None and isinstance(getattr(type(self), 'namespace', None), str):
            self.namespace = type(self).namespace
        self._director = None if director is _MISSING else director
        self._items = []
        self._items_by_name = {}
        self._connections = {}
        self._edges = []
        self._graph_warnings = []
        self._queue_info = {}
        self._messages = []

    def __repr__(self):
        return f'Production({self.name!r}, items={len(self._items)})'

    # --- fluent production fields ---------------------------------------------------------------
    def testing(self, enabled=True):
        self.testing_enabled = enabled
        return self

    def tracing(self, enabled=True):
        self.log_general_trace_events = enabled
        return self

    def actor_pool(self, size):
        self.actor_pool_size = size
        return self

    def describe(self, text):
        self.description = text
        return self

    def timeouts(self, *, shutdown=None, update=None):
        if shutdown is not None:
            self.shutdown_timeout = shutdown
        if update is not None:
            self.update_timeout = update
        return self

    def alerting(self, *, manager=None, operation=None, recipients=None, action_window=None):
        for field, value in (('alert_notification_manager', manager), ('alert_notification_operation', operation),
                             ('alert_notification_recipients', recipients), ('alert_action_window', action_window)):
            if value is not None:
                setattr(self, field, value)
        return self

    def in_namespace(self, namespace):
        self.namespace = namespace
        return self

    def with_director(self, director):
        self._director = director
        return self

    # --- items ------------------------------------------------------------------------------------
    @property
    def items(self):
        return tuple(self._items)

    @property
    def edges(self):
        return tuple(self._edges)

    def item(self, name):
        ref = self._items_by_name.get(str(name))
        if ref is None:
            raise ValueError(f'Production item does not exist: {name}')
        return ref

    def component_ref(self, item):
        if isinstance(item, ComponentRef):
            if item.production is not self:
                raise ValueError('component belongs to a different Production')
            return item
        if isinstance(item, TargetSettingRef):
            return self.item(self.resolve_target_setting_ref(item))
        return self.item(self.resolve_target(str(item)))

    get_component = component_ref
    _component_ref = component_ref

    def component(self, name_or_cls, cls=None, *, class_name=None, adapter_class=None, adapter_class_name=None, kind='component',
                  enabled=True, pool_size=1, category='', foreground=False, comment='', log_trace_events=False, schedule='',
                  settings=None, adapter_settings=None):
        if isinstance(name_or_cls, type) and cls is None:
            component_class, item_name = name_or_cls, name_or_cls.__name__
        else:
            component_class, item_name = cls, str(name_or_cls)
        if item_name in self._items_by_name:
            raise ValueError(f'Production item already exists: {item_name}')
        adapter_ref = None
        adapter_name = adapter_class_name or ''
        if adapter_class is not None:
            if isinstance(adapter_class, type):
                adapter_ref = adapter_class
                adapter_name = adapter_name or auto_proxy_class_name(adapter_class)
            else:
                adapter_name = adapter_name or str(adapter_class)
        ref = ComponentRef(
            production=self, name=item_name, component_class=component_class, class_name=class_name, adapter_class=adapter_ref,
            adapter_class_name=adapter_name, kind=kind, category=category, pool_size=pool_size, enabled=enabled,
            foreground=foreground, comment=comment, log_trace_events=log_trace_events, schedule=schedule,
            host_settings=normalize_settings(settings), adapter_settings=normalize_settings(adapter_settings),
        )
        self._add_item(ref)
        return ref

    add_component = component

    def service(self, name_or_cls, cls=None, **options):
        return self.component(name_or_cls, cls, kind='service', **options)

    def process(self, name_or_cls, cls=None, **options):
        return self.component(name_or_cls, cls, kind='process', **options)

    def operation(self, name_or_cls, cls=None, **options):
        return self.component(name_or_cls, cls, kind='operation', **options)

    def _add_item(self, ref):
        if ref.component_class is not None:
            for other in self._items:
                if other.class_name == ref.class_name and other.component_class is not None and other.component_class is not ref.component_class:
                    raise ValueError(
                        f'Proxy class name collision: {ref.class_name} is used by '
                        f'{other.component_class.__module__}.{other.component_class.__qualname__} and '
                        f'{ref.component_class.__module__}.{ref.component_class.__qualname__}; pass class_name= to one of them'
                    )
            for name, declared in _target_defaults(ref.component_class):
                ref.host_settings.setdefault(name, declared)
        self._items.append(ref)
        self._items_by_name[ref.name] = ref
        self._apply_target_defaults()

    def _apply_target_defaults(self):
        """A `target("Item")` default becomes a route once that item exists (unless the setting was changed)."""
        for ref in self._items:
            for name, default in _target_defaults(ref.component_class):
                if ref.host_settings.get(name) != default or (ref.name, name) in self._connections:
                    continue
                targets = split_targets(default)
                if targets and all(target in self._items_by_name for target in targets):
                    for index, target in enumerate(targets):
                        self._register_connection(ref.name, name, target, replace=index == 0)

    def update_component(self, item, **fields):
        ref = self.component_ref(item)
        for field in ('kind', 'category', 'pool_size', 'enabled', 'foreground', 'comment', 'log_trace_events', 'schedule'):
            if field in fields:
                setattr(ref, field, fields.pop(field))
        if 'component_class' in fields:
            ref.component_class = fields.pop('component_class')
            if 'class_name' not in fields and ref.component_class is not None:
                ref.class_name = auto_proxy_class_name(ref.component_class)
            if ref.component_class is not None:
                ref.target_setting_names.update(target_setting_names_of(ref.component_class))
        if 'class_name' in fields:
            ref.class_name = fields.pop('class_name')
        if ref.class_name is None and ref.component_class is None:
            raise ValueError('component_class or class_name is required')
        if 'adapter_class' in fields:
            adapter_class = fields.pop('adapter_class')
            ref.adapter_class = adapter_class if isinstance(adapter_class, type) else None
            if 'adapter_class_name' not in fields:
                ref.adapter_class_name = '' if adapter_class is None else auto_proxy_class_name(adapter_class) if isinstance(adapter_class, type) else str(adapter_class)
        if 'adapter_class_name' in fields:
            ref.adapter_class_name = str(fields.pop('adapter_class_name') or '')
        if not ref.adapter_class_name:
            ref.adapter_class_name = adapter_type_of_class(ref.component_class)
        for field, target in (('settings', ref.host_settings), ('host_settings', ref.host_settings), ('adapter_settings', ref.adapter_settings)):
            if field in fields:
                apply_settings_update(target, fields.pop(field))
        if 'other_settings' in fields:
            ref.other_settings = [dict(value) for value in fields.pop('other_settings')]
        if 'target_settings' in fields:
            ref.target_setting_names.update(str(value) for value in fields.pop('target_settings'))
        if fields:
            raise ValueError(f'Unsupported component update fields: {", ".join(sorted(fields))}')
        return ref

    def delete_component(self, item):
        ref = self.component_ref(item)
        self._items = [existing for existing in self._items if existing is not ref]
        self._items_by_name.pop(ref.name, None)
        for (source_item, setting), targets in list(self._connections.items()):
            if source_item == ref.name:
                del self._connections[(source_item, setting)]
                continue
            if ref.name in targets:
                remaining = [target for target in targets if target != ref.name]
                source = self._items_by_name.get(source_item)
                if remaining:
                    self._connections[(source_item, setting)] = remaining
                    if source is not None:
                        source.host_settings[setting] = ','.join(remaining)
                else:
                    del self._connections[(source_item, setting)]
                    if source is not None:
                        source.host_settings.pop(setting, None)
        self._edges = [edge for edge in self._edges if edge.source_item != ref.name and edge.target != ref.name]

    def disconnect(self, source):
        if isinstance(source, TargetSettingRef):
            if source.production is not self:
                raise ValueError('source target setting belongs to a different Production')
            item_name, setting = source.item_name, source.name
        else:
            item_name, separator, setting = str(source).rpartition('.')
            if not separator:
                raise ValueError('source must be a TargetSettingRef or an Item.TargetSetting string')
        if (item_name, setting) not in self._connections:
            raise ValueError(f'Production target setting is not connected: {item_name}.{setting}')
        del self._connections[(item_name, setting)]
        self.item(item_name).host_settings.pop(setting, None)
        self._edges = [edge for edge in self._edges if not (edge.source_item == item_name and edge.source_target_setting == setting)]

    def message(self, iris_classname, msg_cls, *, sync_schema=True):
        """Registers a PersistentMessage class under an IRIS class name (migrated with the production)."""
        from ..messages.persistent import get_python_classname, is_persistent_message_class

        iris_classname = str(iris_classname or '').strip()
        if not iris_classname:
            raise ValueError('PersistentMessage IRIS classname is required')
        if not is_persistent_message_class(msg_cls):
            raise TypeError('msg_cls must be a concrete PersistentMessage subclass')
        python_name = get_python_classname(msg_cls)
        for registration in self._messages:
            same_python = get_python_classname(registration.message_class) == python_name
            if registration.iris_classname == iris_classname:
                if not same_python:
                    raise ValueError(f'PersistentMessage IRIS classname already registered: {iris_classname}')
                if registration.sync_schema != bool(sync_schema):
                    raise ValueError(f'PersistentMessage registration has conflicting sync_schema for {iris_classname}')
                return self
            if same_python:
                raise ValueError(f'PersistentMessage class already registered with IRIS classname {registration.iris_classname}')
        self._messages.append(PersistentMessageRegistration(iris_classname, msg_cls, bool(sync_schema)))
        return self

    # --- routes -------------------------------------------------------------------------------------
    def connect(self, source, target_component=None, *, mode='replace'):
        if not isinstance(source, TargetSettingRef):
            if isinstance(source, TargetSetting):
                raise TypeError(
                    'source must be bound to a production item. Use component.connect(ComponentClass.Target, target_component) '
                    'or prod.connect(component.Target, target_component).'
                )
            raise TypeError('source must be a TargetSettingRef returned from a ComponentRef')
        if source.production is not self:
            raise ValueError('source target setting belongs to a different Production')
        mode = connection_mode(mode)
        if mode == 'remove':
            if target_component is None:
                self.disconnect(source)
            else:
                self._remove_target(source, self._component_name(target_component))
            return
        if target_component is None:
            raise ValueError("target_component is required unless mode='remove'")
        target_name = self._component_name(target_component)
        component = source.component
        if mode == 'replace':
            component.set_host_setting(source.name, target_name)
        else:
            existing = split_targets(component.host_settings.get(source.name, ''))
            if target_name not in existing:
                component.host_settings[source.name] = ','.join(existing + [target_name])
        component.target_setting_names.add(source.name)
        self._register_connection(source.item_name, source.name, target_name, replace=mode == 'replace')

    def _component_name(self, target):
        if isinstance(target, TargetSetting):
            raise ValueError('target must be a production item, not a target setting declaration')
        if isinstance(target, ComponentRef):
            if target.production is not self:
                raise ValueError('target component belongs to a different Production')
            return target.name
        if isinstance(target, TargetSettingRef):
            return self.resolve_target_setting_ref(target)
        if isinstance(target, type):
            return target.__name__
        name = getattr(target, 'name', None) if not isinstance(target, str) else target
        if not name:
            raise TypeError('target_component must be a ComponentRef or an item name')
        return str(name)

    def _register_connection(self, item_name, setting, target, *, replace, origin='authored', interaction='request', metadata=None):
        key = (item_name, setting)
        if replace:
            self._connections[key] = [target]
            self._edges = [edge for edge in self._edges if not (edge.source_item == item_name and edge.source_target_setting == setting and edge.origin == origin)]
        elif target not in self._connections.setdefault(key, []):
            self._connections[key].append(target)
        if not any(edge.source_item == item_name and edge.source_target_setting == setting and edge.target == target and edge.origin == origin for edge in self._edges):
            self._edges.append(GraphEdge(item_name, setting, target, origin, interaction, dict(metadata or {})))

    def _remove_target(self, source, target_name):
        key = (source.item_name, source.name)
        targets = self._connections.get(key, [])
        if target_name not in targets and not any(edge.source_item == source.item_name and edge.source_target_setting == source.name and edge.target == target_name for edge in self._edges):
            raise ValueError(f'Production target setting is not connected: {source.path} -> {target_name}')
        remaining = [target for target in targets if target != target_name]
        if remaining:
            self._connections[key] = remaining
            source.component.host_settings[source.name] = ','.join(remaining)
        else:
            self._connections.pop(key, None)
            source.component.host_settings.pop(source.name, None)
        self._edges = [edge for edge in self._edges if not (edge.source_item == source.item_name and edge.source_target_setting == source.name and edge.target == target_name)]

    def resolve_target_setting_ref(self, ref):
        if ref.production is not self:
            raise ValueError('target setting ref belongs to a different Production')
        return self._resolve_connection(ref.item_name, ref.name, ref.path)

    def _resolve_connection(self, item_name, setting, path):
        targets = self._connections.get((item_name, setting))
        if not targets:
            raise ValueError(f'Production target setting is not connected: {path}')
        if len(targets) > 1:
            raise ValueError(f'Production target setting is ambiguous: {path} resolves to multiple targets ({", ".join(repr(t) for t in targets)})')
        return targets[0]

    def resolve_target(self, target):
        if isinstance(target, TargetSettingRef):
            return self.resolve_target_setting_ref(target)
        if isinstance(target, ComponentRef):
            return self._component_name(target)
        name = str(target)
        if name in self._items_by_name:
            return name
        if '.' in name:
            item_name, _, setting = name.rpartition('.')
            if item_name not in self._items_by_name:
                raise ValueError(f'Production item does not exist: {item_name}')
            return self._resolve_connection(item_name, setting, name)
        raise ValueError(f'Production item does not exist: {name}')

    # --- renderings ----------------------------------------------------------------------------------
    def to_dict(self):
        return _render.production_to_dict(self)

    def to_xml(self):
        return _render.production_to_xml(self)

    def to_python(self):
        return _render.production_to_python(self)

    def to_class(self):
        return _render.production_to_class(self)

    def graph(self):
        nodes = tuple(GraphNode(ref.name, ref.class_name or '', ref.kind, _truthy(ref.enabled), ref.category, ref.adapter_class_name or '') for ref in self._items)
        return ProductionGraph(self.name, nodes, tuple(self._edges), tuple(self._graph_warnings))

    def to_mermaid(self, *, direction='LR'):
        return self.graph().to_mermaid(direction=direction)

    def component_registrations(self):
        seen, result = set(), []
        for ref in self._items:
            if ref.component_class is not None and ref.class_name not in seen:
                seen.add(ref.class_name)
                result.append(ref)
        return tuple(result)

    def adapter_registrations(self):
        seen, result = set(), []
        for ref in self._items:
            if ref.adapter_class is not None and ref.adapter_class_name not in seen:
                seen.add(ref.adapter_class_name)
                result.append(ref)
        return tuple(result)

    def message_registrations(self):
        return tuple(self._messages)

    # --- validation, diff, plan, apply -------------------------------------------------------------------
    def validate(self, *, strict=False):
        from ._validation import validate_production

        return validate_production(self, strict=strict)

    def diff(self, other=None):
        from ._diff import deployable_diff

        return deployable_diff(self, self._current(other))

    diff_deployable = diff

    def graph_diff(self, other=None):
        from ._diff import graph_diff

        return graph_diff(self, self._current(other))

    def plan(self, current=None):
        from ._plan import build_plan

        return build_plan(self, self._current(current))

    def _current(self, other):
        if other is None:
            return stored_or_blank(self.name, self.namespace, self._director)[0]
        if isinstance(other, Production):
            return other
        if isinstance(other, dict):
            return Production.from_dict(other)
        raise TypeError('compare with a Production, an export dict, or None for the stored production')

    def apply(self, plan=None, *, allow_destructive=False, backup_dir='.iop/backups', root_path=None, update=True):
        from ._plan_apply import apply_plan

        return apply_plan(self, plan, allow_destructive=allow_destructive, backup_dir=backup_dir, root_path=root_path, update=update)

    def verify(self, plan):
        from ._plan_verify import verify_plan

        return verify_plan(self, plan)

    @staticmethod
    def rollback_backup(path, *, director=None, namespace=None, allow_destructive=False, update=True):
        from ._plan_backup import rollback_backup

        return rollback_backup(path, director=director, namespace=namespace, allow_destructive=allow_destructive, update=update)

    def sync(self, *, root_path=None, update=True):
        from ._runtime import sync_production

        return sync_production(self, root_path=root_path, update=update)

    # --- reading a stored production -----------------------------------------------------------------
    @classmethod
    def from_dict(cls, data, *, connections=None, queue_info=None, namespace=None, director=None):
        from ._reconstruction import production_from_dict

        return production_from_dict(cls, data, connections=connections, queue_info=queue_info, namespace=namespace, director=director)

    @classmethod
    def from_iris(cls, name, *, namespace=None, director=None):
        from ._runtime import resolve_director

        chosen = resolve_director(director, namespace)
        export = chosen.export_production(name)
        try:
            connections = chosen.export_production_connections(name)
        except Exception as error:  # older servers: the graph then has no runtime edges
            connections = {'production': name, 'items': [], 'warnings': [f'connections unavailable: {error}']}
        try:
            queues = chosen.export_production_queue_info(name)
        except Exception:
            queues = None
        return cls.from_dict(export, connections=connections, queue_info=queues, namespace=namespace, director=director)


def is_missing_production(error):
    """True for the server's answer to a production that is not stored (yet)."""
    return getattr(error, 'code', '') == 'ERR_PRODUCTION_NOT_FOUND' or 'does not exist' in str(error)


def stored_or_blank(name, namespace=None, director=None):
    """(the stored production, its export) — or an empty production and None when none is stored yet,
    so that a first plan adds every item."""
    from ._runtime import resolve_director

    chosen = resolve_director(director, namespace)
    try:
        export = chosen.export_production(name)
    except Exception as error:
        if not is_missing_production(error):
            raise
        return Production._blank(name, namespace=namespace, director=director), None
    connections = _optional(lambda: chosen.export_production_connections(name))
    queues = _optional(lambda: chosen.export_production_queue_info(name))
    return Production.from_dict(export, connections=connections, queue_info=queues, namespace=namespace, director=director), export


def _optional(call):
    try:
        return call()
    except Exception:  # older servers: no runtime edges or queue metadata
        return None


def _truthy(value):
    return str(value).strip().lower() in ('1', 'true', 'yes', 'on') if not isinstance(value, bool) else value


def _target_defaults(component_class):
    """(setting, default item names) of a class's target() settings that have a default."""
    if component_class is None:
        return ()
    found = []
    for name in target_setting_names_of(component_class):
        declared = getattr(component_class, name, None)
        if isinstance(declared, TargetSetting) and declared.has_default and declared.default:
            found.append((name, str(declared.default)))
    return tuple(found)


def copy_production(production):
    return copy.deepcopy(production)


from ._runtime import install_runtime_methods  # noqa: E402  (the runtime helpers attach to the class)

install_runtime_methods(Production)
