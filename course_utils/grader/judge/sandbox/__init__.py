"""The graded kernel's sandbox: bubblewrap namespaces, an unprivileged uid, limits, no network.

For instructors, on any Linux grading machine, as root or from their own account: `course
autograde` points the kernelspec `python3` at this package (see `jobs`), so that the kernel that
runs a student's notebook

- runs in new user, mount, PID, network, IPC and UTS namespaces made by bubblewrap, as uid 65534
  with no capability (from an ordinary account, that uid is the account seen through the user
  namespace; as root, the supervisor drops to uid 65534 on the machine too);
- sees only what grading needs (`layout`), has only its own loopback (the grader reaches it over
  Unix sockets), gets a clean environment, and writes only to size-limited tmpfs;
- runs, with everything it starts, in a cgroup of its job's own where the machine allows (`cgroups`,
  made by the grading worker): memory, processes and CPU limited for all of them together; besides,
  per process, data memory and CPU time, and, without a cgroup, processes per sandbox (`limits`);
- writes to its stdout and stderr through a pipe its launcher drains with a cap (`output`);
- ends with every process it started (`processes`, `supervisor`).

Its modules, one job each: `layout` (what the kernel sees, as bwrap's arguments), `bubblewrap`
(finding and starting bwrap), `launcher` (the kernelspec's command, outside the sandbox),
`supervisor` (PID 1 inside), `prestart` (sandboxes built while the job before runs), `limits`,
`cgroups`, `output`, `processes` and `report` (the JSON lines `jobs.read_report` turns into flags).

Run as: python -m course_utils.grader.judge.sandbox -f CONNECTION_FILE
"""
from course_utils.grader.judge.sandbox.bubblewrap import MINIMUM_BWRAP, find_bwrap, why_no_user_namespaces
from course_utils.grader.judge.sandbox.launcher import main, run_isolated, run_unisolated
from course_utils.grader.judge.sandbox.layout import (
    ETC_FILES,
    FOLDER_BYTES,
    HANDED_CONNECTION,
    HOME,
    KERNEL_ENVIRONMENT,
    SANDBOX_GID,
    SANDBOX_UID,
    SHM_BYTES,
    SOCKETS,
    STAGING,
    SYSTEM_FOLDERS,
    TMP_BYTES,
    Layout,
    kernel_environment,
    nested_arguments,
    python_folders,
    socket_links,
)
from course_utils.grader.judge.sandbox.limits import apply_limits
from course_utils.grader.judge.sandbox.prestart import PRESTART_WAIT_SECONDS, PRESTARTED, prestart, prestart_key, run_prestarted
from course_utils.grader.judge.sandbox.processes import become_subreaper, descendants, end_leftovers
from course_utils.grader.judge.sandbox.report import REPORT, record
from course_utils.grader.judge.sandbox.supervisor import inside, supervise

__all__ = [
    "ETC_FILES", "FOLDER_BYTES", "HANDED_CONNECTION", "HOME", "KERNEL_ENVIRONMENT", "MINIMUM_BWRAP",
    "PRESTARTED", "PRESTART_WAIT_SECONDS", "REPORT", "SANDBOX_GID", "SANDBOX_UID", "SHM_BYTES", "SOCKETS",
    "STAGING", "SYSTEM_FOLDERS", "TMP_BYTES", "Layout", "apply_limits", "become_subreaper", "descendants",
    "end_leftovers", "find_bwrap", "inside", "kernel_environment", "main", "nested_arguments", "prestart",
    "prestart_key", "python_folders", "record", "run_isolated", "run_prestarted", "run_unisolated",
    "socket_links", "supervise", "why_no_user_namespaces",
]
