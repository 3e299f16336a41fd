"""The Python side of Conveyor's worker bridge: `python3 -u -m conveyor_host` runs one component."""
