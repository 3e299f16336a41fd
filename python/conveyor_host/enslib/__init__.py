"""IRIS's own adapters, by their IRIS names, for Python components whose `get_adapter_type()` names
them (docs/enslib.md): the engine hosts one in the component's worker as `self.adapter`."""
