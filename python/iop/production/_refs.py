"""Items of a production (ComponentRef) and references to their target settings (TargetSettingRef)."""
import dataclasses

from ..components.settings import TargetSetting, target  # noqa: F401  (re-exported by the package)
from ._common import (
    adapter_type_of_class,
    apply_settings_update,
    auto_proxy_class_name,
    bool_text,
    settings_to_iris,
    text_value,
)


@dataclasses.dataclass(frozen=True)
class TargetSettingRef:
    """`Item.Setting` of a production: where a route starts."""

    production: object = dataclasses.field(repr=False, compare=False)
    component: object = dataclasses.field(repr=False, compare=False)
    name: str = ''

    @property
    def item_name(self):
        return self.component.name

    @property
    def path(self):
        return f'{self.item_name}.{self.name}'

    def resolve(self):
        return self.production.resolve_target_setting_ref(self)

    def __str__(self):
        return self.path


@dataclasses.dataclass(frozen=True)
class PersistentMessageRegistration:
    iris_classname: str
    message_class: type
    sync_schema: bool = True


def target_setting_names_of(component_class):
    names = {}
    for base in reversed(getattr(component_class, '__mro__', ())):
        for name, value in base.__dict__.items():
            if isinstance(value, TargetSetting):
                names[name] = None
    return tuple(names)


@dataclasses.dataclass(eq=False)
class ComponentRef:
    """One item of a Production; fluent setters return the ref itself."""

    production: object = dataclasses.field(repr=False)
    name: str
    component_class: type = None
    class_name: str = None
    adapter_class: type = None
    adapter_class_name: str = ''
    kind: str = 'component'
    category: str = ''
    pool_size: object = 1
    enabled: object = True
    foreground: object = False
    comment: str = ''
    log_trace_events: object = False
    schedule: str = ''
    host_settings: dict = dataclasses.field(default_factory=dict)
    adapter_settings: dict = dataclasses.field(default_factory=dict)
    other_settings: list = dataclasses.field(default_factory=list)
    target_setting_names: set = dataclasses.field(default_factory=set)
    runtime_metadata: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        if self.class_name is None:
            if self.component_class is None:
                raise ValueError('component_class or class_name is required')
            self.class_name = auto_proxy_class_name(self.component_class)
        if not self.adapter_class_name:
            self.adapter_class_name = adapter_type_of_class(self.component_class)
        if self.component_class is not None:
            self.target_setting_names.update(target_setting_names_of(self.component_class))

    def __getattr__(self, name):
        if name.startswith('_'):
            raise AttributeError(name)
        names = self.__dict__.get('target_setting_names') or set()
        if name in names:
            return TargetSettingRef(self.production, self, name)
        raise AttributeError(f'{type(self).__name__} {self.__dict__.get("name")!r} has no target setting {name!r}')

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.target_setting_names))

    def __repr__(self):
        return f'ComponentRef(name={self.name!r}, class_name={self.class_name!r}, kind={self.kind!r})'

    def target_setting(self, name):
        name = getattr(name, 'name', None) or str(name)
        self.target_setting_names.add(name)
        return TargetSettingRef(self.production, self, name)

    def set_host_setting(self, name, value):
        self.host_settings[getattr(name, 'name', None) or str(name)] = value

    # --- fluent setters ---------------------------------------------------------------------------
    def pool(self, size):
        self.pool_size = size
        return self

    def enable(self, enabled=True):
        self.enabled = enabled
        return self

    def disable(self):
        self.enabled = False
        return self

    def run_foreground(self, enabled=True):
        self.foreground = enabled
        return self

    def trace(self, enabled=True):
        self.log_trace_events = enabled
        return self

    def schedule_on(self, schedule):
        self.schedule = schedule
        return self

    def comment_as(self, text):
        self.comment = text
        return self

    def category_as(self, category):
        self.category = category
        return self

    def host_setting(self, name, value):
        apply_settings_update(self.host_settings, {name: value})
        return self

    def host_settings_update(self, values):
        apply_settings_update(self.host_settings, values)
        return self

    setting = host_setting
    settings_update = host_settings_update

    def adapter_setting(self, name, value):
        apply_settings_update(self.adapter_settings, {name: value})
        return self

    def adapter_settings_update(self, values):
        apply_settings_update(self.adapter_settings, values)
        return self

    def other_setting(self, target, name, value):
        self.other_settings = [s for s in self.other_settings if not (s.get('@Target') == target and s.get('@Name') == name)]
        if value is not None:
            self.other_settings.append({'@Target': target, '@Name': name, '#text': text_value(value)})
        return self

    # --- graph and runtime ------------------------------------------------------------------------
    def connect(self, setting, target=None, **options):
        if isinstance(setting, TargetSetting) and setting.owner is not None:
            if self.component_class is None or not issubclass(self.component_class, setting.owner):
                raise ValueError(f'target setting {setting.owner.__name__}.{setting.name} belongs to another component class than item {self.name!r}')
        if isinstance(setting, TargetSettingRef) and setting.component is not self:
            raise ValueError(f'target setting {setting.path} belongs to another item than {self.name!r}')
        source = setting if isinstance(setting, TargetSettingRef) else self.target_setting(setting)
        self.production.connect(source, target, **options)
        return self

    def inspect(self, *, refresh=True):
        return self.production.inspect_component(self, refresh=refresh)

    def start(self):
        return self.production.start_component(self)

    def stop(self):
        return self.production.stop_component(self)

    def restart(self):
        return self.production.restart_component(self)

    def test(self, message=None, classname=None, body=None):
        return self.production.test_component(self, message=message, classname=classname, body=body)

    def to_dict(self):
        item = {
            '@Name': self.name,
            '@Category': self.category,
            '@ClassName': self.class_name,
            '@PoolSize': text_value(self.pool_size),
            '@Enabled': bool_text(self.enabled),
            '@Foreground': bool_text(self.foreground),
            '@Comment': self.comment,
            '@LogTraceEvents': bool_text(self.log_trace_events),
            '@Schedule': self.schedule,
        }
        settings = settings_to_iris('Host', self.host_settings) + settings_to_iris('Adapter', self.adapter_settings)
        settings.extend(dict(setting) for setting in self.other_settings)
        if settings:
            item['Setting'] = settings
        return item
