import pytest

from shapes.geometry import circle_area, square_area


def test_circle_area():
    assert circle_area(1.0) == pytest.approx(3.14159, rel=1e-4)


def test_square_area():
    assert square_area(3) == 9
