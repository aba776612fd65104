"""Stores: the only code that touches a database driver."""
