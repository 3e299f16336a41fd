import os

from iop import BusinessService

from msg import FileMessage


class InboxService(BusinessService):
    """Polled every CallInterval: each new file of `inbox` is read, moved to `archive` and sent to
    the router."""

    inbox = ''
    archive = ''
    target = 'Router'

    @staticmethod
    def get_adapter_type():
        return 'Ens.InboundAdapter'

    def on_init(self):
        os.makedirs(self.inbox, exist_ok=True)
        os.makedirs(self.archive, exist_ok=True)
        self.log_info(f'Watching {self.inbox}')

    def on_process_input(self, message_input):
        for name in sorted(os.listdir(self.inbox)):
            source = os.path.join(self.inbox, name)
            if not os.path.isfile(source) or name.startswith('.'):
                continue
            with open(source, encoding='utf-8') as file:
                text = file.read()
            os.replace(source, os.path.join(self.archive, name))
            self.send_request_async(self.target, FileMessage(name=name, text=text))
        return None
