"""The package metadata builds without deprecation warnings."""

from __future__ import annotations

import re
import tomllib

from tests.conftest import ROOT


def test_the_licence_is_an_spdx_expression_with_a_setuptools_that_reads_one():
    # PEP 639: a table ({text = ...}) is deprecated; setuptools reads a plain SPDX
    # expression from version 77 on and rejects it before.
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert data["project"]["license"] == "MIT"
    (setuptools,) = [r for r in data["build-system"]["requires"] if r.startswith("setuptools")]
    found = re.fullmatch(r"setuptools>=(\d+)(\.\d+)*", setuptools)
    assert found is not None and int(found.group(1)) >= 77, setuptools
