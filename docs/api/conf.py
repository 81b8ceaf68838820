"""Sphinx configuration of pams-cpp's API reference site (`make docs`).

The site is built from docs/ (the source directory: the guides docs/*.md,
docs/index.rst and the API pages in docs/api/), with this folder as its
configuration directory (`sphinx-build -c docs/api`, scripts/build-docs.sh).
The Python API comes from the pams_cpp installed in .venv-py (autodoc
imports it, so the pages show what users get, not the checkout's sources);
the C++ API is Doxygen's HTML of include/pams/, copied into the site as
cpp/ (docs/api/Doxyfile). Nothing here reaches the network: intersphinx is
not used, and the theme's assets are installed with it.
"""
import logging
import os
import re

import pams_cpp

project = "pams-cpp"
author = "pams-cpp authors"
copyright = "pams-cpp authors"
release = pams_cpp.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    # PAMS's docstrings and ours are in Google style (Args:, Returns:,
    # Raises:, Note:, Warning:): napoleon turns those sections into fields,
    # so that they are not read (and warned about) as plain reST.
    "sphinx.ext.napoleon",
    "myst_parser",
]

root_doc = "index"
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
# images/ holds the guides' figures (copied where a page shows one), not
# pages.
exclude_patterns = ["images/*"]

# autodoc: members in the modules' __all__ order (the order their authors
# chose), with the signature in the heading and types in the description.
autodoc_member_order = "bysource"
autodoc_default_options = {"show-inheritance": True}
autodoc_typehints = "description"
autodoc_class_signature = "mixed"
# (Importing pams_cpp imports neither TensorFlow nor PyTorch nor JAX: the
# runners that need them import them when they are created, so the site
# builds without them.)
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False

# MyST: the guides are GitHub-flavoured Markdown. Headings up to level 3 get
# anchors, so that links such as python.md#install resolve.
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

html_theme = "furo"
html_title = f"pams-cpp {release}"
html_static_path = []
# Doxygen's HTML of the C++ headers (scripts/build-docs.sh writes it to
# build-docs/doxygen/cpp) is copied into the site as cpp/.
_doxygen = os.environ.get("PAMS_DOXYGEN_HTML")
html_extra_path = [_doxygen] if _doxygen else []

# --- README.md on the site -------------------------------------------------
# docs/api/readme.md includes the README. Its links to docs/*.md become links
# to the guides (the include's :relative-docs:), its images are copied; its
# links to other files of the repository (examples/plugin/, ...) have no page
# on the site and would be broken links: they are shown as their text.
_REPO_LINK = re.compile(r"\[([^\]]+)\]\((?!docs/|https?:|mailto:|#)([^)\s]+)\)")


def _readme_links(app, relative_path, parent_docname, content):
    if str(relative_path).endswith("README.md"):
        content[0] = _REPO_LINK.sub(r"\1", content[0])


# --- Docstrings with known reST problems -------------------------------------
# Warnings are errors (-W), so that a docstring that renders badly fails the
# build. A docstring that cannot be fixed at once may be listed here (the
# "docstring of NAME" that docutils reports): its warnings are dropped, and
# the build says when an entry is no longer needed. None is listed now.
KNOWN_BAD_DOCSTRINGS: set = set()
_dropped = set()


class _KnownBadDocstrings:
    def filter(self, record):
        location = str(getattr(record, "location", "") or "")
        for name in KNOWN_BAD_DOCSTRINGS:
            if location.endswith(f"docstring of {name}") or f"docstring of {name}:" in location:
                _dropped.add(name)
                return False
        return True


def _report_exclusions(app, exception):
    # print, not Sphinx's logger: the build runs with -q, which hides infos.
    for name in sorted(KNOWN_BAD_DOCSTRINGS - _dropped):
        print(f"docs/api/conf.py: KNOWN_BAD_DOCSTRINGS entry {name} is no longer "
                 f"needed (its docstring builds cleanly): remove it")
    for name in sorted(_dropped):
        print(f"docs/api/conf.py: warnings of the docstring of {name} dropped "
                 f"(KNOWN_BAD_DOCSTRINGS)")


def setup(app):
    logging.getLogger("sphinx.sphinx.util.docutils").addFilter(_KnownBadDocstrings())
    app.connect("include-read", _readme_links)
    app.connect("build-finished", _report_exclusions)
