"""`iop.migration.io`: production dict <-> XML (IoP 4 layout)."""
from .utils import dict_to_xml, xml_to_dict, xml_to_json  # noqa: F401
