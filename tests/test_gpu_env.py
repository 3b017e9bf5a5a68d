"""`.ci/gpu-env`, the Python the GPU runs grade with, on a simulated bare GPU machine.

A lent GPU machine may have torch and, on PYTHONPATH, the course's dependencies, without the
course installed. The graded kernels' sandbox clears the environment, so such a Python grades
nothing (every kernel dies importing `course_utils`). Simulated here on a CPU: this
environment's base interpreter, which has none of the packages, with this environment's
site-packages on PYTHONPATH.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

NEEDS = "import course_utils, nbgrader, ipykernel, torch; print(course_utils.__file__)"


def _bare_machine(tmp_path):
    """(a copy of the course's gpu-env in a course root of its own, the machine's Python, its environment)."""
    (tmp_path / ".ci").mkdir()
    shutil.copy(ROOT / ".ci" / "gpu-env", tmp_path / ".ci" / "gpu-env")
    (tmp_path / "course_utils").symlink_to(ROOT / "course_utils")
    base = getattr(sys, "_base_executable", sys.executable)
    site_packages = next(p for p in sys.path if p.endswith("site-packages") and p.startswith(sys.prefix))
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "PYTHON": base, "PYTHONPATH": site_packages}
    return tmp_path / ".ci" / "gpu-env", base, env


@pytest.mark.slow
def test_a_python_that_imports_the_course_only_through_the_environment_gets_a_venv_that_does(tmp_path):
    script, base, env = _bare_machine(tmp_path)
    alone = subprocess.run([base, "-I", "-c", NEEDS], capture_output=True, text=True, cwd="/", env=env)
    assert alone.returncode != 0, "the simulated machine's Python must not import the course by itself"
    with_path = subprocess.run([base, "-c", "import nbgrader, torch"], capture_output=True, text=True, cwd="/", env=env)
    assert with_path.returncode == 0, "its dependencies are on PYTHONPATH, as on the machine the issue met"

    made = subprocess.run([str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert made.returncode == 0, made.stderr
    python = made.stdout.strip().splitlines()[-1]
    assert python == str(tmp_path / "build" / "gpu-venv" / "bin" / "python")
    # What a sandboxed kernel gets: no environment at all.
    cleared = subprocess.run([python, "-I", "-c", NEEDS], capture_output=True, text=True, cwd="/", env={})
    assert cleared.returncode == 0, cleared.stderr
    assert Path(cleared.stdout.strip()).parent == tmp_path / "course_utils"


@pytest.mark.slow
def test_a_python_that_imports_everything_by_itself_is_used_as_it_is(tmp_path):
    script, _, env = _bare_machine(tmp_path)
    env = dict(env, PYTHON=sys.executable, PYTHONPATH="")
    made = subprocess.run([str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip() == sys.executable and not (tmp_path / "build").exists()
