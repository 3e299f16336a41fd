"""What every component (hosts and adapters) shares: lifecycle hooks and logging to the event log."""
import logging
import sys
import warnings

from . import _runtime

# Levels of Python's logging module -> event log types (IoP: DEBUG Trace, INFO Info, WARNING
# Warning, ERROR Error, CRITICAL Alert).
_LEVEL_TYPES = ((logging.CRITICAL, 'Alert'), (logging.ERROR, 'Error'), (logging.WARNING, 'Warning'), (logging.INFO, 'Info'))

# Frames from these modules are the SDK itself; the source method is the first frame outside them.
_SDK_MODULES = ('iop.', 'grongier.', 'conveyor_host.')


def _caller_method(depth):
    frame = sys._getframe(depth)
    while frame is not None:
        module = frame.f_globals.get('__name__', '')
        if not module.startswith(_SDK_MODULES) and module != 'logging':
            return frame.f_code.co_name
        frame = frame.f_back
    return ''


class _EventLogHandler(logging.Handler):
    """Routes `self.logger` records to the event log, keeping the calling function as the source method."""

    def __init__(self, component):
        super().__init__(logging.DEBUG)
        self._source_class = type(component).__name__
        self._component = component

    def emit(self, record):
        try:
            log_type = next((name for level, name in _LEVEL_TYPES if record.levelno >= level), 'Trace')
            to_console = getattr(record, 'to_console', None)
            if to_console is None:
                to_console = getattr(self._component, 'log_to_console', False)
            _runtime.emit_log(log_type, self.format(record), self._source_class, record.funcName, to_console)
        except Exception:  # logging must never break the component
            self.handleError(record)


def init_warning_text(cls):
    return (
        f'{cls.__module__}.{cls.__qualname__} defines or inherits __init__(), but Conveyor (like IoP/IRIS) '
        'instantiates components with __new__() and does not call __init__(). Move startup logic to on_init(); '
        'use class attributes or iop.Setting for configurable defaults.'
    )


def defines_init(cls):
    """True when the class or a base other than object defines __init__ (it never runs)."""
    return any('__init__' in klass.__dict__ for klass in cls.__mro__ if klass is not object and klass.__module__ != __name__)


class _Common:
    INFO_URL = ''
    ICON_URL = ''
    log_to_console = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if '__init__' in cls.__dict__ and defines_init(cls):
            if _runtime.link.channel is not None:
                # In a worker IoP logs it as a Warning of the item (its stderr stays for the user's output).
                _runtime.emit_log('Warning', init_warning_text(cls), cls.__name__, 'on_init')
            else:
                warnings.warn(init_warning_text(cls), RuntimeWarning, stacklevel=2)

    @classmethod
    def _get_properties(cls):
        """IoP's settings metadata rows `[name, datatype, default, required, category, description, control]`."""
        from ._settings import setting_rows  # the settings module imports the component modules' neighbours

        return setting_rows(cls)

    # --- lifecycle hooks: the host calls them; components override what they need ---------------
    def on_init(self):
        return None

    def on_tear_down(self):
        return None

    def on_connected(self):
        return None

    def OnInit(self):  # legacy spelling; like IoP, the host does not call it
        return None

    def OnTearDown(self):
        return None

    def OnConnected(self):
        return None

    # --- logging --------------------------------------------------------------------------------
    @property
    def logger(self):
        logger = self.__dict__.get('_conveyor_logger')
        if logger is None:
            logger = logging.getLogger(f'conveyor.component.{type(self).__module__}.{type(self).__name__}.{id(self)}')
            logger.setLevel(logging.DEBUG)
            logger.propagate = False
            logger.addHandler(_EventLogHandler(self))
            self.__dict__['_conveyor_logger'] = logger
        return logger

    @logger.setter
    def logger(self, value):
        self.__dict__['_conveyor_logger'] = value

    def _log(self, log_type, message, to_console):
        if to_console is None:
            to_console = self.log_to_console
        _runtime.emit_log(log_type, str(message), type(self).__name__, _caller_method(1), to_console)

    def trace(self, message, to_console=None):
        self._log('Trace', message, to_console)

    def log_info(self, message, to_console=None):
        self._log('Info', message, to_console)

    def log_warning(self, message, to_console=None):
        self._log('Warning', message, to_console)

    def log_error(self, message, to_console=None):
        self._log('Error', message, to_console)

    def log_alert(self, message, to_console=None):
        self._log('Alert', message, to_console)

    def log_assert(self, message):
        self._log('Assert', message, None)

    def LOGINFO(self, message):
        self._log('Info', message, None)

    def LOGWARNING(self, message):
        self._log('Warning', message, None)

    def LOGERROR(self, message):
        self._log('Error', message, None)

    def LOGALERT(self, message):
        self._log('Alert', message, None)

    def LOGASSERT(self, message):
        self._log('Assert', message, None)
