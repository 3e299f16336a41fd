from iop import BusinessService


class OrderIntake(BusinessService):
    """Takes orders from outside (its adapter, or a flow test's send_to_service) and hands them to
    the router; orders without a customer are refused here."""

    target = 'Router'

    def on_process_input(self, request):
        if not request.customer:
            raise ValueError(f'order {request.id} has no customer')
        self.send_request_async(self.target, request)
        return None
