"""A tiny geometry package with two bugs for the demo."""
