"""python -m pytest_whetstone: the whetstone command."""

from .cli import console

console()
