"""Small helpers shared by the production DSL modules: IoP's text forms of values and names."""
import importlib

from ..components.settings import Setting

# Production-level settings: field -> (IRIS setting name, default).
PRODUCTION_SETTING_FIELDS = {
    'shutdown_timeout': ('ShutdownTimeout', 120),
    'update_timeout': ('UpdateTimeout', 10),
    'alert_notification_manager': ('AlertNotificationManager', ''),
    'alert_notification_operation': ('AlertNotificationOperation', ''),
    'alert_notification_recipients': ('AlertNotificationRecipients', ''),
    'alert_action_window': ('AlertActionWindow', 60),
}
PRODUCTION_FIELDS_BY_SETTING = {iris: field for field, (iris, _) in PRODUCTION_SETTING_FIELDS.items()}
PRODUCTION_FIELDS = ('testing_enabled', 'log_general_trace_events', 'actor_pool_size', 'description') + tuple(PRODUCTION_SETTING_FIELDS)
ITEM_FIELDS = ('class_name', 'category', 'pool_size', 'enabled', 'foreground', 'comment', 'log_trace_events', 'schedule')
SETTING_NAME_ALIASES = {'target_config_name': 'TargetConfigName', 'target_config_names': 'TargetConfigNames'}
KINDS = ('service', 'process', 'operation', 'component')


def bool_text(value):
    if isinstance(value, bool):
        return 'true' if value else 'false'
    text = str(value).strip().lower()
    if text in ('1', 'yes', 'on'):
        return 'true'
    if text in ('0', 'no', 'off'):
        return 'false'
    return text


def text_value(value):
    if value is None:
        return ''
    if isinstance(value, bool):
        return bool_text(value)
    return str(value)


def auto_proxy_class_name(component_class):
    """IoP's registered name of a Python class: `Python.<module>.<Class>` without underscores."""
    return f'Python.{component_class.__module__}.{component_class.__name__}'.replace('_', '')


def adapter_type_of_class(component_class):
    if component_class is None:
        return ''
    from .._components import adapter_type_of

    try:
        return str(adapter_type_of(component_class) or '')
    except Exception:
        return ''


def adapter_type_of_class_name(class_name):
    if not class_name or not class_name.startswith('Python.'):
        return ''
    module_name, _, attribute = class_name[len('Python.'):].rpartition('.')
    if not module_name:
        return ''
    try:
        component_class = getattr(importlib.import_module(module_name), attribute)
    except Exception:
        return ''
    return adapter_type_of_class(component_class) if isinstance(component_class, type) else ''


def setting_name(name):
    if isinstance(name, Setting) and name.name:
        return name.name
    return str(name)


def normalize_settings(values):
    return {setting_name(key): value for key, value in dict(values or {}).items()}


def settings_to_iris(target, values):
    return [{'@Target': target, '@Name': setting_name(name), '#text': text_value(value)} for name, value in values.items()]


def apply_settings_update(target, updates):
    """Merges `updates` into `target`; a None value removes the key."""
    for key, value in (updates or {}).items():
        key = setting_name(key)
        if value is None:
            target.pop(key, None)
        else:
            target[key] = value


def split_targets(value):
    return [part.strip() for part in str(value or '').split(',') if part.strip()]
