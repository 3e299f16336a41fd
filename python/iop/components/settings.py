"""Declared settings: `setting()` / `Setting` descriptors, `Category` names and the editor `controls`.

A Setting is a data descriptor: read on the class it is the declaration (its metadata), read on an
instance it is the value the item configured (set by the worker before on_init), else its default.
"""
import enum

_MISSING = object()


class Category(str, enum.Enum):
    """The portal groups settings by these categories; any other text is a custom category."""

    INFO = 'Info'
    BASIC = 'Basic'
    CONNECTION = 'Connection'
    ADDITIONAL = 'Additional'
    ALERTING = 'Alerting'
    DEV = 'Dev'


def _text(value):
    return str(value.value) if isinstance(value, enum.Enum) else str(value)


class Setting:
    def __init__(self, default=_MISSING, *, data_type=None, iris_type=None, category=None, required=False,
                 description='', control=None, exclude=False):
        self.default = default
        self.data_type = data_type
        self.iris_type = iris_type
        self.category = None if category is None else _text(category)
        self.required = bool(required)
        self.description = description or ''
        self.control = control or ''
        self.exclude = bool(exclude)
        self.name = ''
        self.owner = None

    @property
    def has_default(self):
        return self.default is not _MISSING

    def __set_name__(self, owner, name):
        self.name = name
        self.owner = owner

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        if self.name in instance.__dict__:
            return instance.__dict__[self.name]
        return self.default if self.has_default else None

    def __set__(self, instance, value):
        instance.__dict__[self.name] = value

    def __repr__(self):
        default = repr(self.default) if self.has_default else '<no default>'
        return f'{type(self).__name__}({self.name or "?"}, default={default})'


def setting(default=_MISSING, **options):
    """Declares a setting of a component class (see Setting for the options)."""
    return Setting(default, **options)


class _Controls:
    """Editor contexts of the portal's settings form (IoP's IRIS editor-context strings)."""

    @staticmethod
    def raw(value):
        return value

    @staticmethod
    def selector(context=None, *, multi_select=None, **params):
        parts = []
        if multi_select is not None:
            parts.append(f'multiSelect={1 if multi_select else 0}')
        if context:
            wrapped = context if context.startswith('{') and context.endswith('}') else '{' + context + '}'
            parts.append(f'context={wrapped}')
        parts.extend(f'{key}={value}' for key, value in params.items() if value is not None)
        return 'selector' + ('?' + '&'.join(parts) if parts else '')

    @staticmethod
    def production_item(*, targets=True, production_name='@productionId', multi_select=False):
        context = f'Ens.ContextSearch/ProductionItems?targets={1 if targets else 0}&productionName={production_name}'
        return _Controls.selector(context, multi_select=multi_select or None)

    @staticmethod
    def partner():
        return 'partnerSelector'

    @staticmethod
    def rule():
        return 'ruleSelector'

    @staticmethod
    def credentials():
        return 'credentialsSelector'

    @staticmethod
    def directory():
        return 'directorySelector'

    @staticmethod
    def file():
        return 'fileSelector'

    @staticmethod
    def dtl():
        return 'dtlSelector'

    @staticmethod
    def schedule():
        return 'scheduleSelector'

    @staticmethod
    def ssl_config():
        return 'sslConfigSelector'

    @staticmethod
    def bpl():
        return 'bplSelector'

    @staticmethod
    def character_set():
        return _Controls.selector('Ens.ContextSearch/CharacterSets')

    charset = character_set

    @staticmethod
    def framing(*, host='@currHostId', prop='Framing'):
        return _Controls.selector(f'Ens.ContextSearch/getDisplayList?host={host}&prop={prop}')

    @staticmethod
    def local_interface():
        return _Controls.selector('Ens.ContextSearch/TCPLocalInterfaces')

    @staticmethod
    def schema_category(host):
        return _Controls.selector(f'Ens.ContextSearch/SchemaCategories?host={host}')

    @staticmethod
    def search_table(host):
        return _Controls.selector(f'Ens.ContextSearch/SearchTableClasses?host={host}')


controls = _Controls()

CONFIG_NAME_TYPE = 'Ens.DataType.ConfigName'


class TargetSetting(Setting):
    """A setting whose value names production items (a route of the production graph)."""

    def __init__(self, default='', **options):
        options.setdefault('iris_type', CONFIG_NAME_TYPE)
        options.setdefault('category', Category.BASIC)
        options.setdefault('control', controls.production_item())
        super().__init__(default if default is not None else '', **options)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = instance.__dict__.get(self.name)
        if value not in (None, ''):
            return str(value)
        return str(self.default) if self.has_default and self.default is not None else ''


def target(default='', **options):
    """Declares a target setting: the item(s) a component sends to, wired by Production.connect."""
    return TargetSetting(default, **options)
