"""Pydantic messages for the SDK's tests (imported only when pydantic is installed)."""
from typing import List

from iop import PydanticMessage, PydanticPickleMessage


class Point(PydanticMessage):
    x: int
    y: int = 0
    labels: List[str] = []


class PickledPoint(PydanticPickleMessage):
    x: int
