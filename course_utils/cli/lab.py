"""`course lab`: JupyterLab 4 on this machine, with the course's notebooks and nbgrader's extensions.

The server runs from the course root (nbgrader's Validate button and formgrader read
`nbgrader_config.py` from the server's working directory, and the formgrader needs the
course root inside the server's root), listens on 127.0.0.1 only, and is offline-safe:
no update check on the server, no news or update fetch in the page.

Students (the default) get nbgrader's student tools only: Validate, and the Assignments tab
when an nbgrader exchange is configured (`exchange_configured`). nbgrader's instructor tools
(the formgrader, Create Assignment) are turned off with JupyterLab's and jupyter_server's own
switches: the plugins listed in the app settings dir's page_config.json (`disabled_plugins`)
and the server extensions named False on the command line. `--instructor` keeps everything.

`lab_command()` builds the exact command line, `write_app_settings()` its settings folder and
`lab_environment()` its environment; the browser tests start their server with all three.
"""
from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from course_utils.cli.common import DB_URL_ENV, add_db_url
from course_utils.course import FORMGRADER_EXTENSION, VALIDATE_EXTENSION, Course, CourseError, load_coursedir

DEFAULT_PORT = 8888
HOST = "127.0.0.1"

# JupyterLab settings the course changes from JupyterLab's defaults (a user's own settings
# still win). fetchNews "false" is "Never" in the settings editor: no request to the news feed
# and no toast asking about it; checkForUpdates false: the page never asks for a newer version.
SETTINGS_OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
}
# For tests and screenshots: render every cell (JupyterLab 4.6 renders cells lazily by default).
RENDER_ALL_CELLS = {"@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"}}

STUDENT_URL = "/lab/tree/notebooks"
INSTRUCTOR_URL = "/formgrader"

# nbgrader 0.9.6's JupyterLab plugins (the ids in its labextension's JavaScript,
# share/jupyter/labextensions/@jupyter/nbgrader/static) and server extensions, by who needs them.
# The Validate button is "@jupyter/nbgrader:validate-assignment" with the server extension
# nbgrader.server_extensions.validate_assignment (whose /nbgrader_version the button asks first)
# and the course's VALIDATE_EXTENSION: never turned off.
INSTRUCTOR_PLUGINS = ("@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment")
INSTRUCTOR_SERVER_EXTENSIONS = ("nbgrader.server_extensions.formgrader",)
# The Assignments and Courses tabs talk to the exchange only; the Nbgrader menu then holds
# nothing else a student may use (JupyterLab hides menu items of commands no plugin added).
EXCHANGE_PLUGINS = ("@jupyter/nbgrader:assignment-list", "@jupyter/nbgrader:course-list", "@jupyter/nbgrader:menu")
EXCHANGE_SERVER_EXTENSIONS = ("nbgrader.server_extensions.assignment_list", "nbgrader.server_extensions.course_list")


class PortInUse(Exception):
    """The port is taken: another Jupyter (or anything else) already listens there."""


def settings_overrides(extra: dict | None = None) -> dict:
    """SETTINGS_OVERRIDES, with `extra` ({plugin id: {setting: value}}) merged in."""
    merged = {plugin: dict(values) for plugin, values in SETTINGS_OVERRIDES.items()}
    for plugin, values in (extra or {}).items():
        merged.setdefault(plugin, {}).update(values)
    return merged


def exchange_configured(root: str | Path) -> bool:
    """Whether nbgrader's Assignments tab can reach an exchange for the course at `root`.

    Read as that tab's server extension reads it (nbgrader.server_extensions.assignment_list
    loads nbgrader_config.py from the server's working directory, the course root, and from
    Jupyter's config path; never the server's command line, so `--Exchange.root=...` given to
    `course lab` does not count). An exchange class other than nbgrader's default one (ngshare
    and the like) is configured by the admin who named it: True. nbgrader's default exchange
    needs a course id and its root folder (c.Exchange.root, default
    /usr/local/share/nbgrader/exchange), which nbgrader never creates: without that folder the
    tab shows "Error fetching courses!" and exchange errors, so False.
    """
    from nbgrader.apps import NbGrader
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange import ExchangeFactory
    from nbgrader.exchange.default import Exchange

    with contextlib.chdir(root):
        app = NbGrader()
        app.load_config_file()
    config = app.config
    exchange = ExchangeFactory(config=config).exchange
    if not issubclass(exchange, Exchange):
        return True
    return bool(CourseDirectory(config=config).course_id) and os.path.isdir(exchange(config=config).root)


def disabled_plugins(instructor: bool, exchange: bool) -> list[str]:
    """nbgrader's JupyterLab plugins to turn off: none for instructors; for students the
    instructor tools, and the Assignments tab and Nbgrader menu too when there is no exchange."""
    if instructor:
        return []
    return [*INSTRUCTOR_PLUGINS, *(() if exchange else EXCHANGE_PLUGINS)]


def disabled_server_extensions(instructor: bool, exchange: bool) -> list[str]:
    """nbgrader's server extensions to turn off, as disabled_plugins() does for the page."""
    if instructor:
        return []
    return [*INSTRUCTOR_SERVER_EXTENSIONS, *(() if exchange else EXCHANGE_SERVER_EXTENSIONS)]


def write_app_settings(directory: str | Path, extra: dict | None = None, disabled: list[str] | tuple = ()) -> Path:
    """Write JupyterLab's app settings dir (`overrides.json`, `page_config.json`); return the directory.

    Any overrides.json of this environment's own JupyterLab app settings dir is kept
    (ours win where both set a value), so pointing LabApp.app_settings_dir here loses nothing.
    `disabled` (plugin ids, see disabled_plugins()) goes into page_config.json's
    disabledExtensions, the page config JupyterLab reads first (jupyterlab_server.config.
    get_page_config): `jupyter labextension enable` of the user's own config still wins.
    Without `disabled` no page_config.json is left there.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    overrides = {}
    existing = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    if existing.is_file() and existing.resolve() != (directory / "overrides.json").resolve():
        try:
            overrides = json.loads(existing.read_text(encoding="utf-8"))
        except ValueError:
            overrides = {}
    for plugin, values in settings_overrides(extra).items():
        overrides.setdefault(plugin, {}).update(values)
    (directory / "overrides.json").write_text(json.dumps(overrides, indent=2) + "\n", encoding="utf-8")
    page_config = directory / "page_config.json"
    if disabled:
        page_config.write_text(json.dumps({"disabledExtensions": list(disabled)}, indent=2) + "\n", encoding="utf-8")
    else:
        page_config.unlink(missing_ok=True)
    return directory


def course_server_options(app_settings_dir: str | Path, instructor: bool = False, exchange: bool = True) -> list[str]:
    """The course's options of a Jupyter server, wherever it runs: `course lab`, or a JupyterHub's
    single-user servers (their `Spawner.args`, see docs/jupyterhub.md).

    Offline (no update check, no news, no extension manager asking PyPI), JupyterLab settings from
    `app_settings_dir` (made by write_app_settings(); give students one written with
    disabled_plugins()), the course's Validate button and, for instructors, the formgrader's
    Autograde button graded in the sandbox. A student's server runs without nbgrader's formgrader
    and, when `exchange` is False, without its exchange extensions (disabled_server_extensions()).
    """
    options = [
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.news_url=None",
        "--LabApp.extension_manager=readonly",  # lists installed extensions; never asks PyPI
        f"--LabApp.app_settings_dir={Path(app_settings_dir).resolve()}",
        # The Validate button answered by the course's validator (course_utils/cli/validate.py).
        f"--ServerApp.jpserver_extensions={VALIDATE_EXTENSION}=True",
    ]
    if instructor:  # the formgrader's Autograde button grades in the sandbox (course_utils/grader/term/formgrader.py)
        options.append(f"--ServerApp.jpserver_extensions={FORMGRADER_EXTENSION}=True")
    options += [f"--ServerApp.jpserver_extensions={name}=False"
                for name in disabled_server_extensions(instructor, exchange)]
    return options


def lab_command(root: str | Path, port: int = DEFAULT_PORT, *, app_settings_dir: str | Path,
                token: str | None = None, open_browser: bool = True, instructor: bool = False,
                exchange: bool | None = None, extra_args: tuple[str, ...] | list[str] = ()) -> list[str]:
    """The `jupyter lab` command line for the course at `root` (run it with cwd=root).

    `app_settings_dir` is a folder made by write_app_settings() (for students, with
    disabled_plugins()). `token` None lets Jupyter make one (it prints the URL with it).
    `exchange` None asks exchange_configured(root). `extra_args` go last (tests add
    private user-settings and workspaces dirs there).
    """
    root = Path(root).resolve()
    if exchange is None and not instructor:
        exchange = exchange_configured(root)
    argv = [
        sys.executable, "-m", "jupyterlab",   # JupyterLab of this environment, whatever PATH says
        f"--ServerApp.root_dir={root}",
        f"--ServerApp.ip={HOST}",
        f"--ServerApp.port={int(port)}",
        "--ServerApp.port_retries=0",          # exactly this port, or a clear failure
        f"--ServerApp.open_browser={bool(open_browser)}",
        f"--LabApp.default_url={INSTRUCTOR_URL if instructor else STUDENT_URL}",
        *course_server_options(app_settings_dir, instructor, bool(exchange)),
    ]
    if token is not None:
        argv.append(f"--IdentityProvider.token={token}")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        argv.append("--ServerApp.allow_root=True")   # jupyter refuses to run as root otherwise
    argv.extend(extra_args)
    return argv


def lab_environment(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment to run lab_command() in: `base` (os.environ) with this Python's bin dir first on PATH.

    nbgrader runs some tools by name (the formgrader runs `alembic` when it creates the
    gradebook), and kernels must be this environment's, even when the venv is not activated.
    """
    env = dict(os.environ if base is None else base)
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    return env


def check_port(port: int, host: str = HOST) -> None:
    """Raise PortInUse if `port` cannot be bound on `host` (as the server would bind it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # Tornado sets SO_REUSEADDR too: a port left in TIME_WAIT is free for it, a listening one is not.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, int(port)))
        except OSError as error:
            if error.errno in (errno.EADDRINUSE, errno.EACCES):
                raise PortInUse(port) from error
            raise


def port_message(port: int) -> str:
    return (f"course lab: port {port} on {HOST} is already in use (another JupyterLab?). "
            f"Open the one that is running, stop it, or pick another port: "
            f"course lab --port {int(port) + 1}")


def require_config_follows(course: Course, db_url: str) -> None:
    """CourseError unless nbgrader_config.py, read with DB_URL_ENV set to `db_url`, names `db_url`.

    nbgrader's formgrader rereads nbgrader_config.py as it starts and serves, and the file's
    c.CourseDirectory.db_url then wins over the server's --CourseDirectory.db_url (nbgrader
    0.9.6): a config with a fixed URL would show, and grade into, its own gradebook whatever
    --db-url says.
    """
    saved = os.environ.get(DB_URL_ENV)
    os.environ[DB_URL_ENV] = db_url
    try:
        configured = load_coursedir(course.root).db_url
    finally:
        if saved is None:
            del os.environ[DB_URL_ENV]
        else:
            os.environ[DB_URL_ENV] = saved
    if configured != db_url:
        raise CourseError(
            f"--db-url cannot reach the formgrader: nbgrader_config.py sets c.CourseDirectory.db_url itself, and the "
            f"formgrader rereads that file. Make that line read the environment, e.g. "
            f"c.CourseDirectory.db_url = os.environ.get(\"{DB_URL_ENV}\", <the current value>), then `course lab` "
            f"sets {DB_URL_ENV} from --db-url (or export {DB_URL_ENV} yourself and leave --db-url out).")


def run(args: argparse.Namespace, course: Course) -> int:
    """Start JupyterLab for `course` (this process becomes the server on POSIX); return its exit status."""
    try:
        check_port(args.port)
    except PortInUse:
        print(port_message(args.port), file=sys.stderr)
        return 2
    exchange = True if args.instructor else exchange_configured(course.root)
    # One settings folder per mode: a student's and an instructor's `course lab` may run at once.
    settings = write_app_settings(course.build("lab", "instructor" if args.instructor else "students"),
                                  disabled=disabled_plugins(args.instructor, exchange))
    extra, environment = list(args.extra), lab_environment()
    if args.db_url:  # the formgrader's gradebook, and its Autograde button's (formgrader.grade_one)
        require_config_follows(course, args.db_url)
        extra.append(f"--CourseDirectory.db_url={args.db_url}")
        environment[DB_URL_ENV] = args.db_url
    argv = lab_command(course.root, args.port, app_settings_dir=settings, open_browser=not args.no_browser,
                       instructor=args.instructor, exchange=exchange, extra_args=extra)
    where = "the formgrader (instructor)" if args.instructor else "notebooks/"
    print(f"course lab: starting JupyterLab on http://{HOST}:{args.port} at {where}; "
          "Ctrl-C twice to stop.", file=sys.stderr, flush=True)
    if not exchange:
        print("course lab: no nbgrader exchange is configured here, so there is no Assignments tab: "
              "hand in your notebooks as README.md says.", file=sys.stderr, flush=True)
    if os.name == "posix":
        # Become the server: Ctrl-C, SIGTERM and the exit status are then JupyterLab's own,
        # and no orphaned server outlives a `course lab` that was stopped.
        os.chdir(course.root)
        os.execve(argv[0], argv, environment)
    return subprocess.call(argv, cwd=course.root, env=environment)


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register `course lab` on the `course` command's subparsers."""
    p = subparsers.add_parser("lab", help="open the course in JupyterLab (Validate button, formgrader)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port on {HOST} (default {DEFAULT_PORT})")
    p.add_argument("--no-browser", action="store_true", help="print the URL instead of opening a browser")
    p.add_argument("--instructor", action="store_true", help="open nbgrader's formgrader instead of notebooks/")
    add_db_url(p)
    p.epilog = ("Any other --Class.trait=value option goes to Jupyter and nbgrader as it is, "
                "e.g. --ServerApp.ip=0.0.0.0. The students' Assignments tab reads its exchange from "
                "nbgrader_config.py only (c.Exchange.root): without one that exists it is hidden.")
    p.set_defaults(run=run, hands_on_options=True)
    return p
