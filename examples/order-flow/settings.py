"""The order-flow example: orders pushed into the OrderIn service are routed by amount to the
BigOrders or SmallOrders desk. Its flow tests are in tests/ (python3 -m unittest, or pytest)."""
from bo import OrderDesk
from bp import OrderRouter
from bs import OrderIntake
from msg import Order, Receipt

CLASSES = {
    'Example.OrderIntake': OrderIntake,
    'Example.OrderRouter': OrderRouter,
    'Example.OrderDesk': OrderDesk,
}

PRODUCTIONS = [
    {
        'Example.OrderFlow': {
            '@Name': 'Example.OrderFlow',
            '@TestingEnabled': 'true',
            'Description': 'Routes orders by amount to the big-orders or the small-orders desk',
            'Item': [
                {'@Name': 'OrderIn', '@ClassName': 'Example.OrderIntake'},
                {
                    '@Name': 'Router',
                    '@ClassName': 'Example.OrderRouter',
                    'Setting': {'@Target': 'Host', '@Name': 'threshold', '#text': '1000'},
                },
                {
                    '@Name': 'BigOrders',
                    '@ClassName': 'Example.OrderDesk',
                    'Setting': {'@Target': 'Host', '@Name': 'desk', '#text': 'big'},
                },
                {
                    '@Name': 'SmallOrders',
                    '@ClassName': 'Example.OrderDesk',
                    'Setting': {'@Target': 'Host', '@Name': 'desk', '#text': 'small'},
                },
            ],
        }
    }
]

SCHEMAS = [Order, Receipt]
