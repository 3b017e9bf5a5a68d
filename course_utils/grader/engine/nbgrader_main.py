"""nbgrader's own command line, started faster: one fork server per grader, one fork per run.

`python -m course_utils.grader.engine.nbgrader_main ARGS` is `nbgrader ARGS` without the seconds
jsonschema spends compiling a format checker nbgrader never uses (see
ipynb.skip_iri_format_checker). `python -m course_utils.grader.engine.nbgrader_main --serve` is a
fork server: it imports nbgrader once, then reads one JSON request per line on stdin and
runs each in a forked child, a fresh process of its own that skips the two seconds of
imports every grading job would otherwise pay. nbgrader_runner.ForkServer talks to it.

Hand-written rather than multiprocessing's "forkserver": that one re-imports the caller's
main module in every child (the `course` command itself, or pytest), and a daemonic Dask
worker may not start it at all.

Protocol, one JSON object per line. In: {"id", "args", "cwd", "env", "log"}. Out:
{"id", "pid"} once the child runs, then {"id", "code"} when it ends (its exit status, or
minus the signal that killed it).
"""
import json
import os
import select
import signal
import sys
import traceback
import types

from course_utils.ipynb import skip_iri_format_checker

skip_iri_format_checker()
from nbgrader.apps.nbgraderapp import NbGraderApp, main  # noqa: E402  (after the checker is skipped)


def run_app(args: list[str], cwd: str, env: dict[str, str], log: str) -> int:
    """In a fresh child: run `nbgrader ARGS` in `cwd` with exactly `env`, all output to the file `log`.

    The child leads a process group of its own and is a child subreaper: whatever the kernels
    it starts leave behind (new sessions, double forks) ends with it, when nbgrader finishes
    or when a timeout stops it (SIGTERM), and the job's report says how many.
    """
    from course_utils.grader.judge import sandbox

    os.setsid()
    sandbox.become_subreaper()
    signal.signal(signal.SIGTERM, lambda *_: os._exit(_end(sandbox, 143)))
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    handle = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(handle, 1)
    os.dup2(handle, 2)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    sys.argv = ["nbgrader", *args]
    try:
        NbGraderApp.launch_instance(argv=args)
        return _end(sandbox, 0)
    except SystemExit as exit_:
        return _end(sandbox, exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1))
    except BaseException:  # noqa: BLE001  (the run's log is all its caller sees of it)
        traceback.print_exc()
        return _end(sandbox, 1)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


def _end(sandbox: types.ModuleType, code: int) -> int:
    ended = sandbox.end_leftovers()
    if ended:
        sandbox.record("outlived", ended)
    return code


def _send(message: dict) -> None:
    os.write(1, (json.dumps(message) + "\n").encode())


def _reap(children: dict[int, object]) -> None:
    while children:
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            return
        _send({"id": children.pop(pid), "code": os.waitstatus_to_exitcode(status)})


def warm() -> None:
    """Before the first fork: what every run would otherwise do again for itself.

    nbformat compiles a JSON-schema validator per (nbformat minor, relaxed) the first time a process
    validates a notebook; SQLAlchemy configures the gradebook's mappers at a process's first query;
    an autograde run also imports the SQLite dialect, the kernelspec lookup
    (ipykernel, IPython) and the course's preprocessors (which its config file names); and it judges
    the test cells itself (`judge.verdicts`), with torch, the tests' own helpers and what the notebooks'
    setup cells import (about 2 s of imports a run), and torch's symbolic shapes (sympy), which torch
    imports the first time a test's reference checks a mask in nn.MultiheadAttention (0.45 s of 03's
    2.0 s of tests, 0.7 s of 07's, measured in one process). Each is made or imported here once, as the
    run would make or import it; nbgrader's metadata schemas are checked here once
    (`check_metadata_schemas_once`), and each run's gradebooks will share one engine
    (`one_engine_per_gradebook`). The runs stay fresh processes. Nothing here starts a thread (a fork
    would copy it half-made): torch is imported, never run. What it made is then frozen out of the
    garbage collector (`gc.freeze`, as Python's documentation advises for a process that forks): a
    run's collections then skip this inherited heap, and never write to its pages, which the fork
    shares with every run until written.
    """
    import importlib

    from course_utils.grader.judge.sandbox.processes import settled_heap

    with settled_heap():
        import nbgrader.api  # noqa: F401  (its gradebook's ORM classes)
        from nbformat.validator import get_validator
        from sqlalchemy.orm import configure_mappers

        for minor in (4, 5):
            for relaxed in (False, True):
                get_validator(4, minor, relax_add_props=relaxed)
        configure_mappers()   # else the first query of every run does it: 0.1 s a run
        check_metadata_schemas_once()
        one_engine_per_gradebook()
        try:
            import matplotlib

            matplotlib.use("Agg")   # this process draws nothing; a kernel chooses its own backend
        except ImportError:
            pass
        for module in ("sqlalchemy.dialects.sqlite", "ipykernel.kernelspec", "IPython", "codeop",
                       "course_utils.grader.judge.preprocessors", "course_utils.grader.judge.sandbox", "torch",
                       "torch.fx.experimental.symbolic_shapes",
                       "course_utils.grader.judge.verdicts.cell", "course_utils.notebook.checks",
                       "course_utils.notebook.session", "course_utils.notebook.plotting", "matplotlib.pyplot"):
            try:
                importlib.import_module(module)
            except ImportError:  # a run that needs it reports the error itself
                pass
    _one_thread()


def check_metadata_schemas_once() -> None:
    """nbgrader's cell-metadata validation with each schema checked against its metaschema once.

    nbgrader (nbgraderformat.common) validates every nbgrader cell of every notebook it reads with
    `jsonschema.validate`, which first checks the schema itself: 85% of that validation's time, about
    a tenth of an autograde run's own CPU. The schemas are files of the installed nbgrader, so each is
    checked once (keyed by its content, never by a dict's identity) and every cell is then validated
    as `jsonschema.validate` does it: the best-matching error raised.
    """
    import jsonschema
    from nbgrader.nbgraderformat import common

    checked: dict[str, object] = {}

    def validate(instance: object, schema: dict, *args: object, **kwargs: object) -> None:
        if args or kwargs:   # a call nbgrader does not make today: jsonschema's own, whole
            return jsonschema.validate(instance, schema, *args, **kwargs)
        key = json.dumps(schema, sort_keys=True)
        validator = checked.get(key)
        if validator is None:
            cls = jsonschema.validators.validator_for(schema)
            cls.check_schema(schema)
            validator = checked[key] = cls(schema)
        error = jsonschema.exceptions.best_match(validator.iter_errors(instance))
        if error is not None:
            raise error

    common.jsonschema = types.SimpleNamespace(validate=validate)


def one_engine_per_gradebook() -> None:
    """nbgrader's Gradebook with one SQLAlchemy engine per database URL and process.

    An autograde run opens its gradebook about nine times (nbgrader's init_assignment five times, then
    several preprocessors), and each Gradebook made a new engine, whose cache of compiled statements
    starts empty: every query of every run was compiled again (a tenth of a run's own CPU).
    `Gradebook.close` still disposes of the engine, which closes its connections, not its cache. The
    map is per process: no engine, nor a connection of its pool, is used on both sides of a fork.
    """
    import nbgrader.api
    from sqlalchemy import create_engine

    engines: dict[tuple, object] = {}

    def shared(url: str, **kwargs: object) -> object:
        key = (os.getpid(), str(url), tuple(sorted(kwargs.items())))
        if key not in engines:
            engines[key] = create_engine(url, **kwargs)
        return engines[key]

    nbgrader.api.create_engine = shared


def _one_thread() -> None:
    """torch's own computations in the runs (the tests' references, on test-sized tensors) on one thread.

    A run alternates with its kernel, and at these sizes a second thread only costs the wake-up of an
    OpenMP team for each operation: one worker on two cores graded notebook 07 in 3.9 s a submission
    instead of 4.2. A setting, not a computation: no thread starts before the fork. (Running a few of
    torch's operations here first, to spare each run their first-call costs, made every run slower:
    01 on one core, 3.9 s a submission against 3.6.)
    """
    try:
        import torch
    except ImportError:
        return
    torch.set_num_threads(1)


def serve() -> None:
    """Fork a child per request line on stdin until stdin closes (the grader is gone)."""
    from course_utils.grader.engine.nbgrader_runner import die_with_parent, in_process_alembic_head

    die_with_parent()
    in_process_alembic_head()
    warm()
    children: dict[int, object] = {}
    pending = b""
    while True:
        ready, _, _ = select.select([0], [], [], 0.05 if children else None)
        _reap(children)
        if not ready:
            continue
        chunk = os.read(0, 1 << 16)
        if not chunk:
            break
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            request = json.loads(line)
            pid = os.fork()
            if pid == 0:   # the child: run nbgrader, never return into this loop
                code = 1
                try:
                    die_with_parent()
                    code = run_app(request["args"], request["cwd"], request["env"], request["log"])
                finally:
                    os._exit(code)
            children[pid] = request["id"]
            _send({"id": request["id"], "pid": pid})
    # stdin closed: the grader is gone, and the runs under way die with this process.


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        from course_utils.grader.engine.nbgrader_runner import in_process_alembic_head

        in_process_alembic_head()
        main()
