"""nbgrader's Execute, with every test cell judged in the grader instead of run in the student's kernel.

For instructors: nbgrader gives a test cell its points when its outputs hold no error, and the
outputs come from the kernel that ran the student's code, which could therefore skip a test,
filter its failure out, or print the hidden tests into the notebook. This preprocessor runs the
notebook's other cells in the kernel as nbgrader does, and each graded test cell in the grader's
own process (`verdicts.cell.judge`), whose outputs it writes itself before nbgrader records the
grades: the gradebook, the formgrader, manual grading, feedback and export see an ordinary graded
notebook. Cell tags (`skip-execution`) do not apply to test cells.

It also caps each cell's output while it is collected rather than after (nbgrader's LimitOutput
runs only once the notebook has run): a cell's outputs stop growing at `max_output_chars`, and the
kernel's messages on the iopub channel are refused beyond `max_message_bytes` by the socket itself
(`CappedKernelClient`), so that a flood of printing cannot fill the grader's memory.
"""
from __future__ import annotations

import contextlib
import json
import os

import nbformat
import zmq
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_core.utils import run_sync
from nbclient.exceptions import DeadKernelError
from nbconvert.exporters.exporter import ResourcesDict
from nbformat import NotebookNode
from nbgrader import utils
from nbgrader.preprocessors import Execute
from traitlets import Bool, Integer, Unicode

from course_utils.grader.judge.sandbox import record

# The verdicts (and torch with them) are imported where a notebook is graded, not here: the grader's
# own process reads each job's config, which names this module, and needs none of them.

MAX_MESSAGE_BYTES = 32 << 20


class CappedKernelClient(AsyncKernelClient):
    """jupyter_client's client, whose iopub socket refuses any one message over MAX_MESSAGE_BYTES.

    ZMQ_MAXMSGSIZE must be set before the socket connects, so the socket is made here as
    jupyter_client makes it (ConnectionFileMixin._create_connected_socket), with the option first.
    libzmq ends the connection of a peer that sends a larger message and, that being a protocol
    error, never reconnects it: the rest of the notebook would run with no output and wait out
    nbclient's iopub timeout at every cell. A monitor on the socket sees the disconnection
    (`iopub_refused`), and `reconnect_iopub` makes a new socket.
    """

    _iopub_monitor: zmq.Socket | None = None

    def _create_connected_socket(self, channel: str, identity: bytes | None = None) -> zmq.Socket:
        if channel != "iopub" or self.curve_publickey is not None:
            return super()._create_connected_socket(channel, identity)
        socket = self.context.socket(zmq.SUB)
        socket.linger = 1000
        socket.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
        if identity:
            socket.identity = identity
        address = f"inproc://course-iopub-monitor-{id(socket)}"
        socket.monitor(address, zmq.EVENT_DISCONNECTED)
        # A blocking socket on the same libzmq context (inproc needs it): polled between cells, never awaited.
        self._iopub_monitor = zmq.Context.shadow(self.context.underlying).socket(zmq.PAIR)
        self._iopub_monitor.connect(address)
        socket.connect(self._make_url(channel))
        return socket

    def iopub_refused(self) -> bool:
        """Whether the iopub connection ended since the last call (a message over the limit, in practice)."""
        ended = False
        while self._iopub_monitor is not None and self._iopub_monitor.poll(0):
            self._iopub_monitor.recv_multipart()
            ended = True
        return ended

    def reconnect_iopub(self, timeout: float) -> None:
        """A new iopub socket, ready once the kernel's reply to kernel_info reaches it (or `timeout` passes)."""
        if self._iopub_channel is not None:
            self._iopub_channel.close()
            self._iopub_channel = None
        self._close_monitor()
        with contextlib.suppress(RuntimeError):  # the kernel gone or silent: the next cell finds out
            run_sync(self.wait_for_ready)(timeout=timeout)

    def stop_channels(self) -> None:
        self._close_monitor()  # first: the context's end waits for every socket, and it does not know this one
        super().stop_channels()

    def _close_monitor(self) -> None:
        if self._iopub_monitor is not None:
            self._iopub_monitor.close(linger=0)
            self._iopub_monitor = None


class ExecuteVerdicts(Execute):
    """Execute, except that graded test cells are judged in the grader (see the module docstring)."""

    salt = Unicode("", help="hex: the secret this submission's test inputs are drawn with").tag(config=True)
    # nbgrader raises when a cell's last output does not arrive within iopub_timeout, which stops the whole
    # notebook; here, where the socket refuses a flood's largest messages, the cell's output is cut instead.
    raise_on_iopub_timeout = Bool(False).tag(config=True)
    max_output_chars = Integer(200_000, help="characters of output kept per cell while it runs").tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict | None = None,
                   km: object = None) -> tuple[NotebookNode, ResourcesDict]:
        from course_utils.grader.judge.verdicts.cell import Notebook

        salt = bytes.fromhex(self.salt) if self.salt else os.urandom(16)
        self._notebook = Notebook(salt)
        self._channel = None
        self._printed: dict[int, int] = {}
        try:
            return super().preprocess(nb, resources, km)
        finally:
            if self._channel is not None:
                self._channel.close()

    def preprocess_cell(self, cell: NotebookNode, resources: ResourcesDict,
                        index: int) -> tuple[NotebookNode, ResourcesDict]:
        meta = cell.metadata.get("nbgrader", {}) if cell.cell_type == "code" else {}
        if meta.get("grade") and not meta.get("solution"):
            self._check_assign_resources(resources)
            self._judge(cell)
            return cell, self.resources
        cell, resources = super().preprocess_cell(cell, resources, index)
        if isinstance(self.kc, CappedKernelClient) and self.kc.iopub_refused():
            self._cut(cell.outputs, index, {"message_bytes": MAX_MESSAGE_BYTES},
                      f"a message of this cell's output was larger than the grader takes ({MAX_MESSAGE_BYTES >> 20} MB)")
            self.kc.reconnect_iopub(timeout=float(self.timeout or 60))
        if meta.get("locked") and not meta.get("grade") and not meta.get("solution"):
            self._notebook.define(cell.source)
        return cell, resources

    def _judge(self, cell: NotebookNode) -> None:
        from course_utils.grader.judge.verdicts.cell import judge
        from course_utils.grader.judge.verdicts.channel import CellTimeout, Channel, KernelLost

        if self._channel is None:
            self._channel = Channel(self.km.get_connection_info(), run_sync(self.km.is_alive))
        seconds = float(self.timeout or 600)
        try:
            verdict = judge(cell.source, str(cell.metadata.nbgrader.get("grade_id", "")), self._notebook,
                            self._channel, seconds)
            outputs = verdict.outputs
        except CellTimeout:
            run_sync(self.km.interrupt_kernel)()
            self._channel.wait_for_end(10.0)
            record("timeout", str(cell.metadata.nbgrader.get("grade_id", "")))
            message = (f"the test ran longer than the grader's time limit per cell ({int(seconds)} s): "
                       "an endless loop, or very slow code?")
            outputs = [{"output_type": "error", "ename": "CellTimeoutError", "evalue": message,
                        "traceback": [f"CellTimeoutError: {message}"]}]
        except KernelLost:
            raise DeadKernelError("Kernel died") from None
        cell.outputs = [nbformat.from_dict(output) for output in outputs]
        cell.execution_count = None

    def output(self, outs: list, msg: dict, display_id: str | None, cell_index: int) -> NotebookNode | None:
        """Keep a cell's output while it stays under max_output_chars; say once where it was cut."""
        used = self._printed.get(cell_index, 0)
        if used > self.max_output_chars:
            return None
        size = len(json.dumps(msg.get("content", {}), default=str))
        self._printed[cell_index] = used + size
        if used + size > self.max_output_chars:
            return self._cut(outs, cell_index, {"chars": self.max_output_chars},
                             f"this cell printed more than {self.max_output_chars} characters")
        return super().output(outs, msg, display_id, cell_index)

    def _cut(self, outs: list, cell_index: int, limit: dict, why: str) -> NotebookNode:
        """Say once, in the cell and in the job's report (`limit`, for the row's detail), that its output was cut."""
        self._printed[cell_index] = self.max_output_chars + 1
        record("output", {"cell": cell_index, **limit})
        note = nbformat.v4.new_output("stream", name="stdout", text=f"\n... [output cut by the grader: {why}]\n")
        outs.append(note)
        return note
