"""The process: the `arbitro` entry points, settings, start-up and shutdown, health."""
