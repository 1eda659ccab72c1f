from shapes.series import count_even, sum_to


def test_sum_to_ten():
    assert sum_to(10) == 55


def test_sum_to_one():
    assert sum_to(1) == 1


def test_count_even():
    assert count_even([1, 2, 3, 4]) == 2
