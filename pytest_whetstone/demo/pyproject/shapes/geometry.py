"""Areas and perimeters."""


def circle_area(radius: float) -> float:
    return math.pi * radius * radius


def square_area(side: float) -> float:
    return side * side
