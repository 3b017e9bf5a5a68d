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
from pathlib import Path

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
    """The token of the link `course lab` (process `server`, output in `log`) prints, once it prints
    it and the port takes connections.

    Jupyter Server logs its link before it listens: it binds the port in a callback of the event loop
    that starts after the log lines, so a request made as soon as the link appears can be refused.
    """
    deadline = time.time() + 90
    token = None
    while True:
        assert server.poll() is None, f"course lab exited with {server.returncode}:\n{log.read_text()}"
        assert time.time() < deadline, (f"course lab {'took no connection' if token else 'printed no link'} "
                                        f"within 90 s:\n{log.read_text()}")
        if token is None:
            found = re.search(rf"http://127\.0\.0\.1:{port}/lab/tree/notebooks\?token=(\w+)", log.read_text())
            token = found and found.group(1)
        if token:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=5).close()
                return token
            except ConnectionRefusedError:
                pass
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


# ---- students see nbgrader's student tools only -----------------------------------------------

NBGRADER_JS = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "@jupyter" / "nbgrader" / "static"
VALIDATE_PLUGIN = "@jupyter/nbgrader:validate-assignment"


def test_the_plugin_ids_are_nbgraders_own():
    """The ids the course turns off are the installed labextension's: a renamed plugin would stay on."""
    code = "".join(path.read_text(errors="replace") for path in NBGRADER_JS.glob("*.js"))
    for plugin in (*lab.INSTRUCTOR_PLUGINS, *lab.EXCHANGE_PLUGINS, VALIDATE_PLUGIN):
        # `id:"..."`, or (the formgrader's) a constant that its plugin's `id:` names.
        assert f'id:"{plugin}"' in code or re.search(rf'let (\w+)="{plugin}".*id:\1\b', code), plugin
    # The server extensions nbgrader's install switches on (one file in the environment's config).
    enabled = json.loads((Path(sys.prefix) / "etc" / "jupyter" / "jupyter_server_config.d" / "nbgrader.json")
                         .read_text())["ServerApp"]["jpserver_extensions"]
    assert {*lab.INSTRUCTOR_SERVER_EXTENSIONS, *lab.EXCHANGE_SERVER_EXTENSIONS} < set(enabled)
    assert "nbgrader.server_extensions.validate_assignment" in enabled


def test_students_lose_the_instructor_tools_and_without_exchange_the_assignments_tab():
    alone = lab.disabled_plugins(instructor=False, exchange=False)
    assert set(alone) == {"@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment",
                          "@jupyter/nbgrader:assignment-list", "@jupyter/nbgrader:course-list",
                          "@jupyter/nbgrader:menu"}
    on_a_hub = lab.disabled_plugins(instructor=False, exchange=True)
    assert set(on_a_hub) == {"@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment"}
    assert VALIDATE_PLUGIN not in alone + on_a_hub, "the Validate button stays"
    assert lab.disabled_plugins(instructor=True, exchange=False) == []
    assert lab.disabled_plugins(instructor=True, exchange=True) == []


def test_students_server_runs_without_formgrader_and_exchange_extensions(tmp_path):
    def off(argv):
        return {a.split("=", 1)[1].removesuffix("=False") for a in argv
                if a.startswith("--ServerApp.jpserver_extensions=") and a.endswith("=False")}

    alone = lab.lab_command(ROOT, 8765, app_settings_dir=tmp_path, exchange=False)
    assert off(alone) == {"nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.assignment_list",
                          "nbgrader.server_extensions.course_list"}
    assert f"--ServerApp.jpserver_extensions={VALIDATE_EXTENSION}=True" in alone
    on_a_hub = lab.course_server_options(tmp_path)
    assert off(on_a_hub) == {"nbgrader.server_extensions.formgrader"}
    assert off(lab.lab_command(ROOT, 8765, app_settings_dir=tmp_path, instructor=True)) == set()
    assert off(lab.course_server_options(tmp_path, instructor=True, exchange=False)) == set()


def test_disabled_plugins_go_to_page_config_and_leave_with_instructor_mode(tmp_path):
    folder = lab.write_app_settings(tmp_path / "settings", disabled=lab.disabled_plugins(False, False))
    page_config = json.loads((folder / "page_config.json").read_text())
    assert page_config == {"disabledExtensions": lab.disabled_plugins(False, False)}
    lab.write_app_settings(folder, disabled=lab.disabled_plugins(True, False))
    assert not (folder / "page_config.json").exists(), "instructors get every plugin back"
    assert (folder / "overrides.json").is_file()


@pytest.fixture
def config_course(tmp_path, monkeypatch):
    """A course root with only an nbgrader_config.py; Jupyter's config path kept to tmp_path."""
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_CONFIG_PATH"):
        monkeypatch.setenv(name, str(tmp_path / "jupyter-config"))
    root = tmp_path / "course"
    root.mkdir()

    def write(*lines):
        (root / "nbgrader_config.py").write_text("\n".join(["c = get_config()", *lines]) + "\n")
        return root
    return write


def test_exchange_configured_needs_an_existing_exchange_root_and_a_course_id(config_course, tmp_path):
    exchange = tmp_path / "exchange"
    assert not lab.exchange_configured(config_course('c.CourseDirectory.course_id = "ag"')), \
        "nbgrader's default root /usr/local/share/nbgrader/exchange is absent here"
    assert not lab.exchange_configured(config_course('c.CourseDirectory.course_id = "ag"',
                                                     f'c.Exchange.root = "{exchange}"')), "not created yet"
    exchange.mkdir()
    assert lab.exchange_configured(config_course('c.CourseDirectory.course_id = "ag"',
                                                 f'c.Exchange.root = "{exchange}"'))
    assert not lab.exchange_configured(config_course(f'c.Exchange.root = "{exchange}"')), "no course id"
    # An exchange of its own kind (ngshare and the like) is the admin's to check.
    assert lab.exchange_configured(config_course(
        "from nbgrader.exchange.abc import Exchange",
        "class Service(Exchange): pass",
        "c.ExchangeFactory.exchange = Service"))
    # The global nbgrader config of a hub counts too, as nbgrader's Assignments tab reads it.
    (tmp_path / "jupyter-config").mkdir()
    (tmp_path / "jupyter-config" / "nbgrader_config.py").write_text(
        f'c = get_config()\nc.Exchange.root = "{exchange}"\n')
    assert lab.exchange_configured(config_course('c.CourseDirectory.course_id = "ag"'))


def test_the_published_copy_has_no_exchange(tmp_path):
    """The students' copy carries the course's nbgrader_config.py: no exchange, so no Assignments tab."""
    assert (Path("/usr/local/share/nbgrader/exchange").is_dir()
            or not lab.exchange_configured(ROOT)), "this machine has no exchange"
