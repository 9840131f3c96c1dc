"""Shared fixtures: the repository's vectors and the `aekit` command."""

from __future__ import annotations

import json
import os
import pathlib
import shutil

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
VECTORS = REPO / "vectors"


def load_vectors(name: str) -> dict:
    with open(VECTORS / name) as f:
        return json.load(f)


@pytest.fixture(scope="session")
def aekit_cli() -> pathlib.Path:
    """The `aekit` binary: $AEKIT_CLI, else target/{debug,release}/aekit
    (`cargo build -p aekit-cli`). Missing, the interoperability tests fail:
    they are part of what this package promises."""
    candidates = [os.environ.get("AEKIT_CLI")] if os.environ.get("AEKIT_CLI") else []
    candidates += [REPO / "target" / "debug" / "aekit", REPO / "target" / "release" / "aekit"]
    for candidate in candidates:
        if candidate and pathlib.Path(candidate).is_file():
            return pathlib.Path(candidate)
    found = shutil.which("aekit")
    if found:
        return pathlib.Path(found)
    pytest.fail("the aekit command is needed: run `cargo build -p aekit-cli` or set AEKIT_CLI")
