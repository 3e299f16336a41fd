"""The production graph: nodes (items), edges (routes) and its text and Mermaid renderings."""
import dataclasses
import html
import json
import re

_GROUPS = (('service', 'Services'), ('process', 'Processes'), ('operation', 'Operations'), ('component', 'Other Components'))


@dataclasses.dataclass(frozen=True)
class GraphNode:
    name: str
    class_name: str
    kind: str = 'component'
    enabled: bool = True
    category: str = ''
    adapter_class_name: str = ''

    def to_dict(self):
        data = {'name': self.name, 'class_name': self.class_name, 'kind': self.kind, 'enabled': self.enabled, 'category': self.category}
        if self.adapter_class_name:
            data['adapter_class_name'] = self.adapter_class_name
        return data


@dataclasses.dataclass(frozen=True)
class GraphEdge:
    source_item: str
    source_target_setting: str
    target: str
    origin: str = 'authored'
    interaction: str = 'request'
    metadata: dict = dataclasses.field(default_factory=dict, hash=False, compare=False)

    @property
    def runtime(self):
        return self.origin == 'runtime'

    @property
    def inferred(self):
        return self.origin == 'inferred'

    @property
    def source(self):
        if self.source_target_setting:
            return f'{self.source_item}.{self.source_target_setting}'
        return self.source_item

    def to_dict(self):
        data = {
            'source': self.source, 'source_item': self.source_item, 'source_target_setting': self.source_target_setting,
            'target': self.target, 'origin': self.origin, 'interaction': self.interaction,
        }
        if self.metadata:
            data['metadata'] = dict(self.metadata)
        if self.runtime:
            data['runtime'] = True
        if self.inferred:
            data['inferred'] = True
        return data


@dataclasses.dataclass(frozen=True)
class ProductionGraph:
    production: str
    nodes: tuple = ()
    edges: tuple = ()
    warnings: tuple = ()

    def to_dict(self):
        data = {'production': self.production, 'nodes': [node.to_dict() for node in self.nodes], 'edges': [edge.to_dict() for edge in self.edges]}
        if self.warnings:
            data['warnings'] = list(self.warnings)
        return data

    def to_text(self):
        names = {node.name for node in self.nodes}
        lines = [self.production]
        for node in self.nodes:
            lines.append(f'  {node.name} [{node.class_name}]')
            for edge in self.edges:
                if edge.source_item != node.name:
                    continue
                label = edge.source_target_setting or '(runtime)'
                suffix = '' if edge.target in names else ' (unresolved)'
                extras = [value for value, default in ((edge.origin, 'authored'), (edge.interaction, 'request')) if value != default]
                if extras:
                    suffix += f' [{", ".join(extras)}]'
                lines.append(f'    {label} -> {edge.target}{suffix}')
        if self.warnings:
            lines.append('  warnings:')
            lines.extend(f'    {warning}' for warning in self.warnings)
        return '\n'.join(lines)

    def __str__(self):
        return self.to_text()

    def to_mermaid(self, *, direction='LR'):
        direction = str(direction or 'LR').upper()
        if direction not in ('LR', 'RL', 'TB', 'TD', 'BT'):
            raise ValueError(f'Unsupported Mermaid direction: {direction}')
        ids = _node_ids([node.name for node in self.nodes] + [edge.target for edge in self.edges] + [edge.source_item for edge in self.edges])
        lines = [f'flowchart {direction}', f'  %% Production: {_comment(self.production)}']
        group_firsts = []
        for kind, title in _GROUPS:
            members = [node for node in self.nodes if (node.kind if node.kind in ('service', 'process', 'operation') else 'component') == kind]
            if not members:
                continue
            lines.append(f'  subgraph group_{kind}["{title}"]')
            lines.append('    direction TB')
            for node in members:
                lines.append(f'    {ids[node.name]}["{_text(node.name)}<br/>{_text(node.class_name)}"]')
            lines.append('  end')
            group_firsts.append(ids[members[0].name])
        known = {node.name for node in self.nodes}
        for name in sorted({edge.target for edge in self.edges} - known):
            lines.append(f'  {ids[name]}["{_text(name)}<br/>(unresolved)"]')
        for first, second in zip(group_firsts, group_firsts[1:]):
            lines.append(f'  {first} ~~~ {second}')
        # One line per edge in a stable order (IoP 4.1.1): two routes between the same items stay two arrows.
        ordered = sorted(self.edges, key=lambda e: (e.source_item, e.source_target_setting, e.target, e.origin, e.interaction))
        for edge in ordered:
            arrow = '<--' if edge.interaction == 'sync' else '--'
            lines.append(f'  {ids[edge.source_item]} {arrow} "{_text(_edge_label(edge))}" --> {ids[edge.target]}')
        if self.warnings:
            lines.append('  %% Warnings:')
            lines.extend(f'  %% - {_comment(warning)}' for warning in self.warnings)
        return '\n'.join(lines) + '\n'


def _edge_label(edge):
    """`setting | messages | origin | interaction`, leaving out what is the default (authored, request)."""
    parts = [edge.source_target_setting or '(runtime)']
    metadata = edge.metadata or {}
    messages = metadata.get('messages') or metadata.get('message_types') or metadata.get('accepted_messages')
    if isinstance(messages, (list, tuple)):
        messages = ', '.join(str(message) for message in messages if message)
    messages = messages or metadata.get('message') or metadata.get('request')
    if messages:
        parts.append(str(messages))
    if edge.origin != 'authored':
        parts.append(edge.origin)
    if edge.interaction not in ('', 'request'):
        parts.append(edge.interaction)
    return ' | '.join(parts)


def _node_ids(names):
    ids, used = {}, set()
    for name in names:
        if name in ids:
            continue
        base = 'node_' + (re.sub(r'\W+', '_', name).strip('_') or 'item')
        candidate, counter = base, 2
        while candidate in used:
            candidate, counter = f'{base}_{counter}', counter + 1
        ids[name] = candidate
        used.add(candidate)
    return ids


def _text(value):
    return html.escape(str(value), quote=True)


def _comment(value):
    return str(value).replace('\r\n', ' ').replace('\n', ' ')


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(',', ':'), ensure_ascii=False)
