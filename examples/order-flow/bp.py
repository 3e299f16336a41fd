from iop import BusinessProcess

from msg import Order


class OrderRouter(BusinessProcess):
    """Orders of at least `threshold` go to the big-orders desk, the others to the small-orders desk."""

    threshold = 1000

    def on_order(self, request: Order):
        target = 'BigOrders' if request.amount >= float(self.threshold) else 'SmallOrders'
        self.log_info(f'order {request.id} ({request.amount}) -> {target}')
        return self.send_request_sync(target, request)
