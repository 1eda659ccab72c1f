"""Root conftest: the test suite drives pytest itself through the pytester fixture."""
