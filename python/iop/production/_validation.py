"""Validation of a Production (or a legacy PRODUCTIONS dict): a report of issues, warned or raised."""
import dataclasses
import warnings

from ._common import PRODUCTION_FIELDS, PRODUCTION_FIELDS_BY_SETTING, SETTING_NAME_ALIASES, split_targets

_PRODUCTION_DICT_KEYS = {'@Name', '@TestingEnabled', '@LogGeneralTraceEvents', 'Description', 'ActorPoolSize', 'Setting', 'Item'}
_PRODUCTION_PUBLIC = set(PRODUCTION_FIELDS) | {'name', 'namespace'}


class ProductionValidationError(ValueError):
    def __init__(self, report):
        self.report = report
        super().__init__(report.to_text())


class ProductionValidationWarning(UserWarning):
    pass


@dataclasses.dataclass(frozen=True)
class ProductionValidationIssue:
    kind: str
    path: str
    message: str
    suggestion: str = ''

    def to_dict(self):
        data = {'kind': self.kind, 'path': self.path, 'message': self.message}
        if self.suggestion:
            data['suggestion'] = self.suggestion
        return data

    def to_text(self):
        text = f'{self.kind} {self.path}: {self.message}'
        return f'{text} {self.suggestion}' if self.suggestion else text

    def __str__(self):
        return self.to_text()


@dataclasses.dataclass(frozen=True)
class ProductionValidationReport:
    production: str
    issues: tuple = ()

    @property
    def has_issues(self):
        return bool(self.issues)

    def to_dict(self):
        return {'production': self.production, 'has_issues': self.has_issues, 'issues': [issue.to_dict() for issue in self.issues]}

    def to_text(self):
        lines = [f'Production validation: {self.production}']
        lines.extend(f'  {issue.to_text()}' for issue in self.issues)
        if not self.issues:
            lines.append('  no issues')
        return '\n'.join(lines)

    def __str__(self):
        return self.to_text()

    def raise_or_warn(self, *, strict):
        if not self.issues:
            return self
        if strict:
            raise ProductionValidationError(self)
        for issue in self.issues:
            warnings.warn(f'{self.production}: {issue.to_text()}', ProductionValidationWarning, stacklevel=3)
        return self


def validate_production(production, *, strict=False):
    return build_report(production).raise_or_warn(strict=strict)


def build_report(production):
    if isinstance(production, dict):
        return _dict_report(production)
    issues = []
    for attribute in sorted(vars(production)):
        if attribute.startswith('_') or attribute in _PRODUCTION_PUBLIC:
            continue
        issues.append(ProductionValidationIssue('production', f'production.{attribute}', 'Unknown public Production attribute. Only documented Production fields are serialized.'))
    for item in production.items:
        if item.component_class is not None:
            issues.extend(_check_names(item.host_settings, f'items.{item.name}.settings.Host', _local_names(item.component_class) | set(item.target_setting_names)))
        if item.adapter_settings:
            if item.kind == 'process':
                issues.append(ProductionValidationIssue('setting', f'items.{item.name}.settings.Adapter', 'Business process items do not support adapter settings.'))
            elif item.adapter_class is not None:
                issues.extend(_check_names(item.adapter_settings, f'items.{item.name}.settings.Adapter', _local_names(item.adapter_class)))
    issues.extend(_route_issues(production))
    return ProductionValidationReport(production.name, tuple(issues))


def _local_names(cls):
    getter = getattr(cls, '_get_properties', None)
    if not callable(getter):
        return set()
    try:
        return {str(row[0]) for row in getter()}
    except Exception:
        return set()


def _check_names(settings, prefix, known):
    issues = []
    for name in sorted(settings):
        if name.startswith('%') or name in known:
            continue
        alias = SETTING_NAME_ALIASES.get(name)
        if alias in known:
            issues.append(ProductionValidationIssue('setting', f'{prefix}.{name}', 'Setting name is accepted as a known alias for validation, but IoP will emit the original name.', f'Use {alias!r}.'))
        else:
            issues.append(ProductionValidationIssue('setting', f'{prefix}.{name}', 'Unknown setting name.'))
    return issues


def _route_issues(production):
    names = {item.name for item in production.items}
    issues = []
    for item in production.items:
        for setting in sorted(item.target_setting_names):
            if setting not in item.host_settings:
                continue
            for target in split_targets(item.host_settings[setting]):
                if target not in names:
                    issues.append(ProductionValidationIssue(
                        'route', f'items.{item.name}.settings.Host.{setting}', f'Target setting references missing production item {target!r}.',
                        f'Add a production item named {target!r}, or update/remove this target setting.',
                    ))
    return issues


def _dict_report(data):
    name = next(iter(data), '') if data else ''
    body = data.get(name) if isinstance(data.get(name), dict) else {}
    issues = []
    for key in sorted(body):
        if key not in _PRODUCTION_DICT_KEYS:
            issues.append(ProductionValidationIssue('production', f'production.{key}', 'Unknown production dictionary key.'))
    settings = body.get('Setting') or []
    for setting in settings if isinstance(settings, list) else [settings]:
        setting_name = setting.get('@Name', '') if isinstance(setting, dict) else ''
        if setting_name not in PRODUCTION_FIELDS_BY_SETTING:
            issues.append(ProductionValidationIssue('production', f'production.Setting.{setting_name}', 'Unknown production-level setting.'))
    return ProductionValidationReport(str(name), tuple(issues))
