"""`course lab`: its command line, its offline settings and its message when the port is taken.

`course lab` itself is started once here; tests/cli/test_browser.py starts a server with the same
command line (lab_command) on a copy of the course and drives it in Chromium.
"""
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from conftest import COURSE, IDS, ROOT, run_course
from course_utils.cli import lab, parse
from course_utils.course import FORMGRADER_EXTENSION, VALIDATE_EXTENSION


def _parse(*argv):
    return parse(["lab", *argv])


def _listening_port():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    return listener, listener.getsockname()[1]


def lab_token(server, log, port):
    """The token of the link `course lab` (process `server`, output in `log`) prints, once it prints it."""
    deadline = time.time() + 90
    while True:
        assert server.poll() is None, f"course lab exited with {server.returncode}:\n{log.read_text()}"
        assert time.time() < deadline, f"course lab printed no link within 90 s:\n{log.read_text()}"
        found = re.search(rf"http://127\.0\.0\.1:{port}/lab/tree/notebooks\?token=(\w+)", log.read_text())
        if found:
            return found.group(1)
        time.sleep(0.3)


def test_options_and_defaults():
    args = _parse()
    assert (args.port, args.no_browser, args.instructor) == (8888, False, False)
    args = _parse("--port", "9001", "--no-browser", "--instructor")
    assert (args.port, args.no_browser, args.instructor) == (9001, True, True)
    assert args.run is lab.run


def test_command_line_is_local_offline_and_serves_the_course(tmp_path):
    argv = lab.lab_command(ROOT, 8765, app_settings_dir=tmp_path, token="t", open_browser=False)
    assert argv[:3] == [sys.executable, "-m", "jupyterlab"], "JupyterLab of this environment"
    for flag in (f"--ServerApp.root_dir={ROOT}", "--ServerApp.ip=127.0.0.1", "--ServerApp.port=8765",
                 "--ServerApp.port_retries=0", "--ServerApp.open_browser=False",
                 "--LabApp.default_url=/lab/tree/notebooks",
                 "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--LabApp.news_url=None",
                 "--LabApp.extension_manager=readonly", f"--LabApp.app_settings_dir={tmp_path.resolve()}",
                 "--IdentityProvider.token=t"):
        assert flag in argv, flag
    assert ("--ServerApp.allow_root=True" in argv) == (os.geteuid() == 0)
    instructor = lab.lab_command(ROOT, 8765, app_settings_dir=tmp_path, instructor=True)
    assert "--LabApp.default_url=/formgrader" in instructor
    assert f"--ServerApp.jpserver_extensions={FORMGRADER_EXTENSION}=True" in instructor, "a safe Autograde button"
    assert f"--ServerApp.jpserver_extensions={FORMGRADER_EXTENSION}=True" not in argv
    assert f"--ServerApp.jpserver_extensions={VALIDATE_EXTENSION}=True" in argv
    assert not any(a.startswith("--IdentityProvider.token") for a in instructor), "Jupyter makes the token"
    env = lab.lab_environment({"PATH": "/usr/bin"})
    assert env["PATH"].split(os.pathsep)[0] == os.path.dirname(sys.executable)


def test_jupyter_and_nbgrader_options_pass_through_lab_only(tmp_path, capsys):
    args = _parse("--Exchange.root=/srv/nbgrader/exchange", "--port", "9001", "--ServerApp.ip=0.0.0.0")
    assert args.port == 9001 and args.extra == ["--Exchange.root=/srv/nbgrader/exchange", "--ServerApp.ip=0.0.0.0"]
    argv = lab.lab_command(ROOT, 9001, app_settings_dir=tmp_path, extra_args=args.extra)
    assert argv[-2:] == args.extra, "last, so that they win over the course's own settings"
    for refused in (["lab", "--bogus"], ["lab", "--Exchange.root", "/srv"], ["autograde", "--Exchange.root=/srv"]):
        with pytest.raises(SystemExit):
            parse(refused)
        assert "unrecognized arguments" in capsys.readouterr().err


def test_settings_overrides_turn_off_news_and_update_checks(tmp_path):
    folder = lab.write_app_settings(tmp_path / "settings", extra=lab.RENDER_ALL_CELLS)
    overrides = json.loads((folder / "overrides.json").read_text())
    assert overrides["@jupyterlab/apputils-extension:notification"] == {"fetchNews": "false",
                                                                         "checkForUpdates": False}
    assert overrides["@jupyterlab/notebook-extension:tracker"]["windowingMode"] == "none"
    plain = json.loads((lab.write_app_settings(tmp_path / "plain") / "overrides.json").read_text())
    assert "@jupyterlab/notebook-extension:tracker" not in plain


def test_port_taken_is_a_clear_error(capsys):
    listener, port = _listening_port()
    with listener:
        assert lab.run(_parse("--port", str(port), "--no-browser"), COURSE) == 2
    err = capsys.readouterr().err
    assert f"port {port}" in err and "already in use" in err and f"--port {port + 1}" in err


def test_course_lab_port_taken_through_the_course_command():
    listener, port = _listening_port()
    with listener:
        done = run_course("lab", "--port", port, "--no-browser", timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "already in use" in done.stderr and "--port" in done.stderr


@pytest.mark.slow
def test_course_lab_serves_the_notebooks_with_nbgrader(tmp_path):
    """`course lab --no-browser` as a student runs it: the link it prints opens notebooks/,
    nbgrader's extension is in the page, and stopping `course lab` stops the server."""
    listener, port = _listening_port()
    listener.close()
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
               JUPYTER_CONFIG_DIR=str(tmp_path / "config"), JUPYTER_DATA_DIR=str(tmp_path / "data"))
    log = tmp_path / "lab.log"
    with open(log, "w") as out:
        server = subprocess.Popen([sys.executable, "-m", "course_utils", "lab", "--no-browser", "--port", str(port)],
                                  cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, text=True)
    try:
        token = lab_token(server, log, port)
        listing = json.load(urllib.request.urlopen(
            f"http://127.0.0.1:{port}/api/contents/notebooks?token={token}", timeout=30))
        assert {item["name"] for item in listing["content"]} >= set(IDS)
        link = f"http://127.0.0.1:{port}/lab/tree/notebooks?token={token}"
        page = urllib.request.urlopen(link, timeout=30).read().decode()
        assert "@jupyter/nbgrader" in page, "nbgrader's lab extension is not enabled"
        assert "starting JupyterLab" in log.read_text()
    finally:
        server.terminate()
        server.wait(timeout=30)
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=5)
