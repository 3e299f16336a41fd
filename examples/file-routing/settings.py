"""The file-routing example: files dropped into <data>/in are routed by content to <data>/out/urgent
or <data>/out/normal. <data> is $CONVEYOR_EXAMPLE_DATA, else <home>/python-example."""
import os

from bo import FolderWriter
from bp import ContentRouter
from bs import InboxService
from msg import FileMessage, WriteResult

HOME = os.environ.get('CONVEYOR_HOME') or os.path.join(os.path.expanduser('~'), '.conveyor')
DATA = os.environ.get('CONVEYOR_EXAMPLE_DATA') or os.path.join(HOME, 'python-example')

CLASSES = {
    'Example.InboxService': InboxService,
    'Example.ContentRouter': ContentRouter,
    'Example.FolderWriter': FolderWriter,
}

PRODUCTIONS = [
    {
        'Example.FileRouting': {
            '@Name': 'Example.FileRouting',
            '@TestingEnabled': 'true',
            'Description': 'Routes the text files of in/ to out/urgent or out/normal by their content',
            'ActorPoolSize': '2',
            'Item': [
                {
                    '@Name': 'Inbox',
                    '@ClassName': 'Example.InboxService',
                    'Setting': [
                        {'@Target': 'Adapter', '@Name': 'CallInterval', '#text': '1'},
                        {'@Target': 'Host', '@Name': 'inbox', '#text': os.path.join(DATA, 'in')},
                        {'@Target': 'Host', '@Name': 'archive', '#text': os.path.join(DATA, 'archive')},
                    ],
                },
                {'@Name': 'Router', '@ClassName': 'Example.ContentRouter'},
                {
                    '@Name': 'UrgentWriter',
                    '@ClassName': 'Example.FolderWriter',
                    'Setting': {'@Target': 'Host', '@Name': 'folder', '#text': os.path.join(DATA, 'out', 'urgent')},
                },
                {
                    '@Name': 'NormalWriter',
                    '@ClassName': 'Example.FolderWriter',
                    'Setting': {'@Target': 'Host', '@Name': 'folder', '#text': os.path.join(DATA, 'out', 'normal')},
                },
            ],
        }
    }
]

SCHEMAS = [FileMessage, WriteResult]
