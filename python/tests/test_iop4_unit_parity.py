"""Behaviour the IoP 4.1.1 unit suite expects of the Production DSL (graph, Mermaid, rendering, source inference)."""
import os
import tempfile
import unittest

from iop import Production


def _export(*items):
    return {'Demo.Production': {'Item': list(items)}}


class MermaidEdgesTest(unittest.TestCase):
    def test_each_edge_is_its_own_arrow_with_pipe_separated_label(self):
        prod = Production.from_dict(
            _export(
                {'@Name': 'In', '@ClassName': 'Demo.In', 'Setting': {'@Target': 'Host', '@Name': 'TargetConfigName', '#text': 'Out'}},
                {'@Name': 'Out', '@ClassName': 'Demo.Out'},
            ),
            connections={'items': [{'item': 'In', 'connections': ['Out']}, {'item': 'Out', 'connections': [], 'warnings': ['w1']}]},
        )
        text = prod.to_mermaid()
        self.assertIn('node_In -- "TargetConfigName | runtime" --> node_Out', text)
        self.assertIn('  %% Warnings:\n  %% - Out: w1\n', text)


class HostSettingFallbackTest(unittest.TestCase):
    def test_failed_discovery_gives_no_reason(self):
        prod = Production.from_dict(
            _export(
                {'@Name': 'In', '@ClassName': 'Demo.In', 'Setting': {'@Target': 'Host', '@Name': 'Output', '#text': 'Out'}},
                {'@Name': 'Out', '@ClassName': 'Demo.Out'},
            ),
            connections={'items': [{'item': 'In', 'warnings': ['boom']}]},
        )
        edge = prod.graph().to_dict()['edges'][0]
        self.assertEqual(edge['metadata'], {'source': 'Host setting fallback'})

    def test_discovered_item_only_keeps_target_config_settings(self):
        prod = Production.from_dict(
            _export(
                {'@Name': 'In', '@ClassName': 'Demo.In', 'Setting': [
                    {'@Target': 'Host', '@Name': 'TargetConfigName', '#text': 'A'},
                    {'@Target': 'Host', '@Name': 'Archive', '#text': 'B'},
                ]},
                {'@Name': 'A', '@ClassName': 'Demo.A'}, {'@Name': 'B', '@ClassName': 'Demo.B'}, {'@Name': 'C', '@ClassName': 'Demo.C'},
            ),
            connections={'items': [{'item': 'In', 'connections': ['C']}]},
        )
        edges = {(e['source_target_setting'], e['target']): e for e in prod.graph().to_dict()['edges']}
        self.assertEqual(sorted(edges), [('', 'C'), ('TargetConfigName', 'A')])
        self.assertEqual(edges[('TargetConfigName', 'A')]['metadata']['reason'], 'runtime discovery did not report this target setting')


class ToClassTest(unittest.TestCase):
    def test_string_python_proxy_item_gets_a_todo(self):
        text = Production.from_dict(_export({'@Name': 'FileInput', '@ClassName': 'Python.demo.FileService'})).to_class()
        self.assertIn('# TODO: replace this proxy class name with the Python class object', text)
        self.assertNotIn('proxy class name', Production.from_dict(_export({'@Name': 'X', '@ClassName': 'Demo.X'})).to_class())


if __name__ == '__main__':
    unittest.main()
