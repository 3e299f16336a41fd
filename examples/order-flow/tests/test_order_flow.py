"""Flow tests of the order-flow production, on a real server started for this module.

Run from the repository root (the SDK folder python/ on the path):
    PYTHONPATH=python python3 -m unittest discover -s examples/order-flow/tests -v
    PYTHONPATH=python python3 -m pytest examples/order-flow/tests
"""
import os
import unittest

from conveyor_testing import Flow, FlowError

SETTINGS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'settings.py')


class OrderFlowTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.flow = Flow.start(SETTINGS, production='Example.OrderFlow')

    @classmethod
    def tearDownClass(cls):
        cls.flow.close()

    def setUp(self):
        # Each test looks only at the messages it caused.
        self.flow.reset()

    def test_a_big_order_reaches_the_big_orders_desk_only(self):
        self.flow.send_to_service('OrderIn', 'msg.Order', {'id': 1, 'customer': 'ACME', 'amount': 2500})
        [order] = self.flow.assert_received('BigOrders', count=1, classname='msg.Order')
        self.assertEqual(order.body, {'id': 1, 'customer': 'ACME', 'amount': 2500})
        self.assertEqual(order.source, 'Router')
        self.flow.assert_nothing_reached('SmallOrders')

    def test_orders_are_routed_by_amount(self):
        for number, amount in enumerate([10, 999.5, 1000, 40], start=10):
            self.flow.send_to_service('OrderIn', 'msg.Order', {'id': number, 'customer': 'Zed', 'amount': amount})
        small = self.flow.assert_received('SmallOrders', count=3, where=lambda order: order.body['amount'] < 1000)
        self.assertEqual([order.body['id'] for order in small], [10, 11, 13])
        self.assertEqual([order.body['id'] for order in self.flow.assert_received('BigOrders', count=1)], [12])
        self.assertEqual(len(self.flow.received('Router')), 4)

    def test_an_item_answers_a_direct_request(self):
        reply = self.flow.send('BigOrders', 'msg.Order', {'id': 99, 'customer': 'Direct', 'amount': 5})
        self.assertEqual((reply.classname, reply.body), ('msg.Receipt', {'order_id': 99, 'desk': 'big'}))

    def test_the_service_refuses_an_order_without_customer_and_sends_nothing(self):
        with self.assertRaises(FlowError) as refused:
            self.flow.send_to_service('OrderIn', 'msg.Order', {'id': 3, 'amount': 50})
        self.assertIn('order 3 has no customer', str(refused.exception))
        self.flow.assert_nothing_reached('Router')


if __name__ == '__main__':
    unittest.main()
