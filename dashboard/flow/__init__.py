"""The study flow: the assignment state machine, its pages, the live control channel, tab presence and rollback."""
