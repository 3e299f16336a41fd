"""A stand-in for the `iris` module of InterSystems IRIS, limited to what IoP user code touches.

Native message classes (`Ens.Request`, `Ens.Response`, `Ens.StringRequest`, `Ens.StringResponse`)
are plain Python classes whose module is `iris` and whose name is the IRIS class name, so that
`type(msg).__module__ + '.' + type(msg).__name__` reads `iris.Ens.StringRequest` exactly as IoP's
typed dispatch expects. Other names (`iris.dc.Demo.PostMessage` in an annotation, `iris.cls('X')`)
resolve to an open class made on first use: importing user code must never fail on them.
"""

_registry = {}


class _NativeMeta(type):
    def __repr__(cls):
        return f"<iris class '{cls.__name__}'>"


class NativeObject(metaclass=_NativeMeta):
    """Base of every native class. Properties live in the instance `__dict__`."""

    _PROPERTIES = {}

    def __init__(self, **properties):
        for name, default in type(self)._all_properties().items():
            setattr(self, name, default)
        for name, value in properties.items():
            setattr(self, name, value)

    @classmethod
    def _all_properties(cls):
        merged = {}
        for klass in reversed(cls.__mro__):
            merged.update(klass.__dict__.get('_PROPERTIES', {}))
        return merged

    @classmethod
    def _New(cls, *args):
        instance = cls()
        instance._init_value(*args)
        return instance

    def _init_value(self, *args):
        if args:
            raise TypeError(f'{type(self).__name__}._New() takes no initial value')

    @classmethod
    def Transform(cls, source):
        """IRIS DTL classes: `iris.cls('Pkg.MyTransform').Transform(msg)` runs the stored transform of
        that name on `msg` in the engine and returns the target (not IRIS's status + output argument)."""
        from iop._business_host import apply_transform  # the SDK imports this shim: import it late

        return apply_transform(cls.__name__, source)

    @classmethod
    def _ClassName(cls, full=1):
        return cls.__name__

    def _IsA(self, classname):
        return any(getattr(klass, '__name__', None) == classname for klass in type(self).__mro__ if klass is not NativeObject)

    def _Id(self):
        return getattr(self, '_conveyor_id', None)

    def _Save(self):
        return 1

    def _properties(self):
        return {k: v for k, v in self.__dict__.items() if not k.startswith('_')}

    def __eq__(self, other):
        return type(self) is type(other) and self._properties() == other._properties()

    def __hash__(self):
        return id(self)

    def __repr__(self):
        props = ', '.join(f'{k}={v!r}' for k, v in self._properties().items())
        return f'{type(self).__name__}({props})'


def _define(name, base, properties=None, init_property=None):
    namespace = {'__module__': 'iris', '__qualname__': name, '_PROPERTIES': dict(properties or {})}
    if init_property is not None:
        def _init_value(self, *args):
            if args:
                setattr(self, init_property, args[0])
        namespace['_init_value'] = _init_value
    cls = _NativeMeta(name, (base,), namespace)
    _registry[name] = cls
    return cls


_persistent = _define('%Persistent', NativeObject)
_message_body = _define('Ens.MessageBody', _persistent)
_request = _define('Ens.Request', _message_body)
_response = _define('Ens.Response', _message_body)
_define('Ens.StringRequest', _request, {'StringValue': ''}, 'StringValue')
_define('Ens.StringResponse', _response, {'StringValue': ''}, 'StringValue')
_define('Ens.StringContainer', _message_body, {'StringValue': ''}, 'StringValue')


def _import_schema(cls, path, package, name):
    """IoP's `IOP.Message.JSONSchema.Import(path, package, name)`: stores a JSON schema for DTL."""
    from iop._business_host import import_schema  # the SDK imports this shim: import it late

    import_schema(path, package, name)
    return 1


_define('IOP.Message.JSONSchema', NativeObject).Import = classmethod(_import_schema)


def cls(name):
    """The native class named `name`; unknown names give an open class that takes any property."""
    found = _registry.get(name)
    if found is None:
        found = _define(name, _persistent)
    return found


def is_native(value):
    return isinstance(value, NativeObject)


class _Package:
    """Attribute-style access: `iris.Ens.StringRequest` or `iris.dc.Demo.PostMessage`."""

    def __init__(self, path):
        self._path = path

    def __getattr__(self, part):
        if part.startswith('__'):
            raise AttributeError(part)
        full = f'{self._path}.{part}'
        if full in _registry:
            return _registry[full]
        if part[:1].isupper() and not any(key.startswith(full + '.') for key in _registry):
            return _LazyClass(full)
        return _Package(full)


class _LazyClass(_Package):
    """A name that may be a class or a further package: a class once called or used as one."""

    def _resolve(self):
        return cls(self._path)

    def __call__(self, *args, **kwargs):
        return self._resolve()(*args, **kwargs)

    def __getattr__(self, part):
        if part.startswith('_') and not part.startswith('__'):
            return getattr(self._resolve(), part)
        return super().__getattr__(part)

    @property
    def __dispatch_key__(self):
        return f'iris.{self._path}'


def __getattr__(name):
    if name.startswith('__'):
        raise AttributeError(name)
    return _Package(name)
