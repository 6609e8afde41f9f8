# SPDX-License-Identifier: GPL-2.0
"""Another script of scripts/ as a module: their names hold hyphens, which
"import" does not take."""
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def load(script):
    """scripts/SCRIPT ("series-headings.py") run once as a module"""
    name = os.path.splitext(script)[0].replace('-', '_')
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, script))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
