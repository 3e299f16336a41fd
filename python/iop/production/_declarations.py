"""The declarative form: `class MyProduction(Production)` with ServiceItem / ProcessItem /
OperationItem / ComponentItem tuples and their Routes."""
import dataclasses

from ..components.settings import TargetSetting
from ._common import SETTING_NAME_ALIASES, normalize_settings


def route_setting_name(setting):
    if isinstance(setting, TargetSetting):
        if not setting.name:
            raise ValueError('Route target setting must be declared on a component class')
        return setting.name
    return SETTING_NAME_ALIASES.get(str(setting), str(setting))


@dataclasses.dataclass(frozen=True)
class Route:
    """A route from an item's target setting to one or more items."""

    target_setting: object
    targets: object

    @property
    def target_setting_name(self):
        return route_setting_name(self.target_setting)

    @property
    def target_setting_owner(self):
        return self.target_setting.owner if isinstance(self.target_setting, TargetSetting) else None

    @property
    def target_names(self):
        if isinstance(self.targets, (str, _ItemDeclaration)):
            targets = (self.targets,)
        else:
            try:
                targets = tuple(self.targets)
            except TypeError:
                raise TypeError(f'Route {self.target_setting_name!r} targets must be an item name, a production item declaration, or an iterable of either') from None
        if not targets:
            raise ValueError(f'Route {self.target_setting_name!r} requires at least one target')
        names = []
        for value in targets:
            name = value if isinstance(value, str) else value.name if isinstance(value, _ItemDeclaration) else None
            if not name:
                raise TypeError(f'Route {self.target_setting_name!r} targets must be item names or production item declarations')
            names.append(name)
        return tuple(names)


@dataclasses.dataclass(frozen=True)
class _ItemDeclaration:
    name: str
    component: object = None
    class_name: str = None
    adapter_class: object = None
    adapter_class_name: str = None
    enabled: object = True
    pool_size: object = 1
    category: str = ''
    foreground: object = False
    comment: str = ''
    log_trace_events: object = False
    schedule: str = ''
    settings: dict = None
    host_settings: dict = None
    adapter_settings: dict = None
    other_settings: tuple = None
    routes: object = ()

    kind = 'component'

    def _mapping(self, values, label):
        try:
            return normalize_settings(values)
        except (TypeError, ValueError):
            raise TypeError(f'Production item {self.name!r} {label} must be a mapping') from None

    @property
    def host_setting_values(self):
        settings = self._mapping(self.settings, 'settings')
        host = self._mapping(self.host_settings, 'host_settings')
        duplicates = sorted(settings.keys() & host.keys())
        if duplicates:
            raise ValueError(f'{self.kind.title()} item {self.name!r} declares duplicate Host setting keys: {", ".join(repr(d) for d in duplicates)}')
        return {**settings, **host}

    @property
    def adapter_setting_values(self):
        return self._mapping(self.adapter_settings, 'adapter_settings')

    @property
    def other_setting_values(self):
        return [dict(setting) for setting in self.other_settings or ()]

    @property
    def route_values(self):
        if self.routes is None:
            return ()
        if isinstance(self.routes, Route):
            return (self.routes,)
        routes = tuple(self.routes)
        for route in routes:
            if not isinstance(route, Route):
                raise TypeError(f'{self.kind.title()} item {self.name!r} routes must be Route instances')
        return routes


@dataclasses.dataclass(frozen=True)
class ServiceItem(_ItemDeclaration):
    kind = 'service'


@dataclasses.dataclass(frozen=True)
class ProcessItem(_ItemDeclaration):
    kind = 'process'


@dataclasses.dataclass(frozen=True)
class OperationItem(_ItemDeclaration):
    kind = 'operation'


@dataclasses.dataclass(frozen=True)
class ComponentItem(_ItemDeclaration):
    kind = 'component'


_GROUPS = (('components', None), ('services', ServiceItem), ('processes', ProcessItem), ('operations', OperationItem))


def hydrate(production):
    """Adds the items a Production subclass declares, then their routes."""
    declared = []
    for attribute, expected in _GROUPS:
        for item in tuple(getattr(type(production), attribute, ()) or ()):
            if not isinstance(item, _ItemDeclaration) or (expected is not None and not isinstance(item, expected)):
                wanted = expected.__name__ if expected else 'a production item declaration'
                raise TypeError(f'{type(production).__name__}.{attribute} entries must be {wanted}, got {type(item).__name__}')
            declared.append(item)
    for item in declared:
        component_class = item.component if isinstance(item.component, type) else None
        class_name = item.class_name or (item.component if isinstance(item.component, str) else None)
        route_names = {route.target_setting_name for route in item.route_values}
        host = item.host_setting_values
        repeated = sorted(route_names & host.keys())
        if repeated:
            raise ValueError(f'{item.kind.title()} item {item.name!r} sets {", ".join(repeated)} both in Host settings and by a Route: '
                             'set it with the Route only')
        for route in item.route_values:
            owner = route.target_setting_owner
            if owner is not None and (component_class is None or not issubclass(component_class, owner)):
                raise ValueError(f'Route {route.target_setting_name!r} of item {item.name!r}: the target setting belongs to {owner.__name__}, not to its component')
        ref = production.component(
            item.name, component_class, class_name=class_name, adapter_class=item.adapter_class,
            adapter_class_name=item.adapter_class_name, kind=item.kind, enabled=item.enabled, pool_size=item.pool_size,
            category=item.category, foreground=item.foreground, comment=item.comment, log_trace_events=item.log_trace_events,
            schedule=item.schedule, settings=host, adapter_settings=item.adapter_setting_values,
        )
        ref.other_settings = item.other_setting_values
    for item in declared:
        ref = production.item(item.name)
        for route in item.route_values:
            source = ref.target_setting(route.target_setting_name)
            for index, name in enumerate(route.target_names):
                production.item(name)  # a declared route must name a declared item
                production.connect(source, name, mode='replace' if index == 0 else 'add')
