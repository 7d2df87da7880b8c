"""Sphinx configuration of ferric's documentation: the guides in ``docs/*.md`` (MyST) and
an API reference generated from the docstrings (autodoc + napoleon).

Build (warnings are errors):

    pip install -e ".[docs]"
    python -m sphinx -W --keep-going -b html docs docs/_build/html

The API pages are written at build time into ``docs/api/_generated/`` by
``docs/api_pages.py``, one section per public name of each documented module, so a new
public function appears in the reference without editing any page.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import ferric  # noqa: E402

project = "ferric"
author = "the ferric developers"
copyright = "the ferric developers"  # noqa: A001
release = version = ferric.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "compat.json"]

# MyST: GitHub-style heading anchors, so the guides' `[x](#section)` links resolve
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]
# some guides start at level 2 (they are sections of a larger manual)
suppress_warnings = ["myst.header"]

autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "signature"
autoclass_content = "both"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_custom_sections = [("Shape", "params_style"), ("Example", "examples_style")]

html_theme = "alabaster"
html_title = f"ferric {release}"


def setup(app):
    from api_pages import write_pages

    app.connect("builder-inited", lambda app: write_pages(os.path.join(HERE, "api")))
