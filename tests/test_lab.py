"""`jupyter lab notebooks/` starts, serves the course and loads nbgrader's extensions."""
import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import ROOT


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_jupyter_lab_serves_the_notebooks(tmp_path):
    port, token = _free_port(), "course-test-token"
    jupyter = Path(sys.executable).with_name("jupyter")
    server = subprocess.Popen(
        [str(jupyter), "lab", "notebooks/", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
         f"--IdentityProvider.token={token}", "--ServerApp.allow_root=True",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        contents = None
        deadline = time.time() + 60
        while time.time() < deadline and contents is None:
            try:
                url = f"http://127.0.0.1:{port}/api/contents?token={token}"
                contents = json.load(urllib.request.urlopen(url, timeout=5))
            except OSError:
                time.sleep(0.5)
        assert contents is not None, "jupyter lab did not answer within 60 s"
        names = {item["name"] for item in contents["content"]}
        assert "00_welcome" in names
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/lab?token={token}", timeout=10).read().decode()
        assert "@jupyter/nbgrader" in page, "nbgrader's lab extension is not loaded"
    finally:
        server.terminate()
        server.wait(timeout=30)
