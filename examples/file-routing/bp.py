from iop import BusinessProcess

from msg import FileMessage


class ContentRouter(BusinessProcess):
    """Sends files that mention the keyword to the urgent writer, the others to the normal one."""

    keyword = 'urgent'
    urgent_target = 'UrgentWriter'
    normal_target = 'NormalWriter'

    def on_file(self, request: FileMessage):
        urgent = self.keyword.lower() in (request.text or '').lower()
        target = self.urgent_target if urgent else self.normal_target
        result = self.send_request_sync(target, request)
        self.log_info(f'{request.name} -> {target} ({result.path})')
        return result
