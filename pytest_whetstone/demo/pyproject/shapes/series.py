"""Sums over integer ranges."""


def sum_to(n: int) -> int:
    """1 + 2 + ... + n."""
    total = 0
    for i in range(1, n):
        total += i
    return total


def count_even(values: list[int]) -> int:
    return sum(1 for v in values if v % 2 == 0)
