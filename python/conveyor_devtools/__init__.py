"""Developer tools of the Conveyor worker: the debugger launcher of one item's workers."""
