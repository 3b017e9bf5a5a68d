"""`course execute`: a failing notebook is named with its cell and error; the rest still run.

That every solution notebook runs cleanly in fast mode on the CPU is checked by
tests/qa/test_demo.py, whose `course demo` executes them all.
"""
import nbformat
import pytest

from conftest import COURSE, run_course


@pytest.mark.slow
def test_a_failing_notebook_is_named_with_its_cell(tmp_path):
    import shutil

    shutil.copy(COURSE.config_file, tmp_path / "nbgrader_config.py")
    broken = nbformat.v4.new_notebook()
    broken.cells = [nbformat.v4.new_code_cell("device, fast, seed = 'cpu', True, 0", metadata={"tags": ["parameters"]}),
                    nbformat.v4.new_code_cell("x = 1"),
                    nbformat.v4.new_code_cell("raise ValueError('deliberately broken')")]
    broken.metadata.kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for aid, nb in (("01_broken", broken), ("02_fine", None)):
        folder = tmp_path / "solutions" / aid
        folder.mkdir(parents=True)
        nb = nb or nbformat.v4.new_notebook(cells=[broken.cells[0]], metadata=broken.metadata)
        nbformat.write(nb, str(folder / f"{aid}.ipynb"))
    result = run_course("execute", "--fast", cwd=tmp_path)
    assert result.returncode == 1
    assert "FAILED 01_broken" in result.stdout and "ValueError: deliberately broken" in result.stdout
    assert "02_fine" in result.stdout and (tmp_path / "build" / "executed" / "02_fine.ipynb").is_file()


@pytest.mark.slow
def test_notebooks_run_at_once_each_run_in_their_own_folder(tmp_path):
    """papermill's `cwd` changes the folder of the whole process: with notebooks run in threads,
    a kernel could start in another notebook's folder (the figure audit, which names a figure's
    notebook by its folder, once credited one notebook's figures to another)."""
    import shutil

    shutil.copy(COURSE.config_file, tmp_path / "nbgrader_config.py")
    ids = [f"0{i}_folder" for i in range(1, 5)]
    for aid in ids:
        nb = nbformat.v4.new_notebook(cells=[
            nbformat.v4.new_code_cell("device, fast, seed = 'cpu', True, 0", metadata={"tags": ["parameters"]}),
            nbformat.v4.new_code_cell("import os, time\ntime.sleep(0.5)\nprint(os.path.basename(os.getcwd()))")])
        nb.metadata.kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
        (tmp_path / "solutions" / aid).mkdir(parents=True)
        nbformat.write(nb, str(tmp_path / "solutions" / aid / f"{aid}.ipynb"))
    result = run_course("execute", "--fast", "--workers", "2", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    for aid in ids:
        executed = nbformat.read(str(tmp_path / "build" / "executed" / f"{aid}.ipynb"), as_version=4)
        assert executed.cells[-1].outputs[0]["text"].strip() == aid


@pytest.mark.slow
def test_each_run_gives_its_kernels_cpu_seconds(tmp_path):
    """The kernel's CPU time, not the wall clock: a cell that computes for a second counts, one that sleeps does not."""
    import shutil

    from course_utils.course import Course
    from course_utils.qa.execute import execute, execution_table

    shutil.copy(COURSE.config_file, tmp_path / "nbgrader_config.py")
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("device, fast, seed = 'cpu', True, 0", metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell("import time\nuntil = time.process_time() + 1.0\nwhile time.process_time() < until:\n"
                                  "    pass"),
        nbformat.v4.new_code_cell("time.sleep(2)")])
    nb.metadata.kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    (tmp_path / "solutions" / "01_busy").mkdir(parents=True)
    nbformat.write(nb, str(tmp_path / "solutions" / "01_busy" / "01_busy.ipynb"))
    [run] = execute(Course(tmp_path), ["01_busy"])
    assert run.status == "ok", run.detail
    assert 1.0 <= run.cpu_seconds < run.seconds - 1.5, (run.cpu_seconds, run.seconds)
    table = execution_table([run])
    assert "kernel CPU s" in table.splitlines()[0] and f"{run.cpu_seconds:.1f}" in table.splitlines()[2]
