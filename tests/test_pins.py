"""The install pins in pyproject.toml (pip) and environment.yml (conda, Binder) agree."""
import tomllib

import yaml

from conftest import ROOT


def _pyproject_pins():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [*project["dependencies"], *project["optional-dependencies"]["test"]]


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
    def normal(pins):
        return {p.split("==")[0].lower().replace("_", "-"): p.split("==")[1] for p in pins}

    pip, conda = normal(_pyproject_pins()), normal(_environment_pins())
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
