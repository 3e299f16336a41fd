"""The paths of diff entries and plan operations taken apart: `items.<item>[.<field>]`,
`items.<item>.settings.<Host|Adapter|Other>[.<setting>]`, `connections.<item>.<setting>`."""


def item_name(path):
    return path.split('.', 2)[1] if path.startswith('items.') else ''


def item_field(path):
    parts = path.split('.')
    return parts[2] if len(parts) > 2 else ''


def setting_path(path):
    parts = path.split('.', 4)
    if len(parts) >= 4 and parts[0] == 'items' and parts[2] == 'settings':
        return parts[1], parts[3], parts[4] if len(parts) > 4 else ''
    return None


def connection_source(path):
    rest = path[len('connections.'):] if path.startswith('connections.') else path
    item, separator, setting = rest.rpartition('.')
    return (item, setting) if separator else (rest, '')
