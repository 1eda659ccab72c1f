"""ccwrap: the compiler shim of Whetstone.

The installed ``ccwrap`` / ``ccwrap++`` commands are a small native program
built from ``shim.c`` at install time (see ``native.py`` and ``setup.py``);
``main.py`` is the pure-Python fallback with identical behaviour.  Nothing
here imports ``pytest_whetstone``: the shim stands apart from the package.
"""
