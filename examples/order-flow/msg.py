from dataclasses import dataclass

from iop import Message


@dataclass
class Order(Message):
    """An order as the intake receives it."""

    id: int = None
    customer: str = None
    amount: float = None


@dataclass
class Receipt(Message):
    """What a desk answers: which desk took the order."""

    order_id: int = None
    desk: str = None
