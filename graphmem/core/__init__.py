"""Pure logic: no SQL and no I/O. Traversal tree, lifecycle rules, rendering, validation."""
