"""Whetstone: turn build and test failures into located, classified records and fixes."""

__version__ = "0.1.0"
