from iop import BusinessOperation

from msg import Order, Receipt


class OrderDesk(BusinessOperation):
    """Takes an order and answers a receipt naming the desk (its `desk` setting)."""

    desk = ''

    def on_order(self, request: Order):
        return Receipt(order_id=request.id, desk=self.desk)
