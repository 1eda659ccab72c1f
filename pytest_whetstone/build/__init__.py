"""Building C/C++ code outside the user's build: the recorded compile database and the per-file gate."""
