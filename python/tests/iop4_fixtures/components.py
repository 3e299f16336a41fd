"""Components of the IoP 4 tests: 4.x classes beside a 3.6-style (grongier.pex) one."""
from dataclasses import dataclass
from typing import Annotated

from grongier.pex import BusinessOperation as LegacyOperation
from iop import BusinessOperation, BusinessProcess, Category, Message, PollingBusinessService, Setting, controls, handler, setting, target


@dataclass
class Order(Message):
    order_id: str = ''
    quantity: int = 0


@dataclass
class Receipt(Message):
    text: str = ''


class OrderService(PollingBusinessService):
    Output = target()
    Prefix = setting('ord', category=Category.BASIC, description='Order id prefix')
    Folder: Annotated[str, Setting('/tmp', control=controls.directory(), required=True)]

    def on_poll(self):
        self.send_request_async(self.Output, Order(order_id=f'{self.Prefix}-1', quantity=1))


class Router(BusinessProcess):
    Accepted = target('OrderOperation')
    Rejected = target()


class OrderOperation(BusinessOperation):
    Factor: int = setting(2, category=Category.ADDITIONAL)

    @handler(Order)
    def on_order(self, request):
        return Receipt(text=f'{request.order_id} x{request.quantity * self.Factor}')


class OldStyleOperation(LegacyOperation):
    """IoP 3.6 code, unchanged: CamelCase hook and a plain class attribute setting."""

    limit = 10

    def OnMessage(self, request):
        return Receipt(text=f'legacy {request.order_id}')
