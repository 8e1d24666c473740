"""The `arbitro db` command line and what only it uses (copying, anchors)."""
