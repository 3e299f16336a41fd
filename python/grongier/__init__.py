"""Legacy namespace of IoP (`grongier.pex`), kept for older user code."""
