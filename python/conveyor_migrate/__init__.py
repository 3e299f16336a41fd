"""Reads a settings.py (CLASSES, PRODUCTIONS, SCHEMAS) for Conveyor's migration."""
