import os

from iop import BusinessOperation

from msg import FileMessage, WriteResult


class FolderWriter(BusinessOperation):
    """Writes each file it receives into `folder`."""

    folder = ''

    def on_init(self):
        os.makedirs(self.folder, exist_ok=True)

    def on_file(self, request: FileMessage):
        path = os.path.join(self.folder, os.path.basename(request.name))
        with open(path, 'w', encoding='utf-8') as file:
            file.write(request.text or '')
        return WriteResult(path=path, worker_pid=os.getpid())
