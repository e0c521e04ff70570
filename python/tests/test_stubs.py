"""The type stubs ship with the package and describe what exists."""

import ast
import os

import strata


def test_stubs_match_the_module():
    here = os.path.dirname(strata.__file__)
    assert os.path.exists(os.path.join(here, "py.typed"))
    with open(os.path.join(here, "__init__.pyi"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    checked = 0
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            cls = getattr(strata, node.name)
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    assert hasattr(cls, item.name), f"{node.name}.{item.name}"
                    checked += 1
        elif isinstance(node, ast.FunctionDef):
            assert callable(getattr(strata, node.name)), node.name
            checked += 1
    assert checked > 50
    for name in strata.__all__:
        assert hasattr(strata, name), name
