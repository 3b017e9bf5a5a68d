"""The grader's line to the graded kernel while a test cell is judged: the kernel's own stdin channel.

The grader asks the kernel to run one cell, `probe.serve(token)`, with `allow_stdin`; from then on
every reply of the kernel is the prompt of an input request, and every request of the grader is
the answer to it (Jupyter's input_request / input_reply, signed with the kernel's key). Only this
client's session receives those input requests, and a reply is read only if it starts with the
probe's prefix and, first of all, echoes the token the grader chose for this cell: what the
student's code prints, or sends of its own accord, never counts as a reply.

Written against jupyter_client's `Session` and pyzmq directly, rather than a `BlockingKernelClient`,
for two reasons: the stdin socket gets a message size limit (ZMQ_MAXMSGSIZE) before it connects,
so that no reply can make the grader hold more than that, and no iopub socket is opened at all
(the student's prints during a test are not the grader's to read; nbclient's own client reads
and caps them).
"""
from __future__ import annotations

import contextlib
import json
import secrets
import time
from collections.abc import Callable

import zmq
from jupyter_client.session import Session

from course_utils.notebook.probe import PREFIX, VERSION

SERVE = "import course_utils.notebook.probe as _course_probe\n_course_probe.serve({token!r})\n"


class ChannelError(RuntimeError):
    """The kernel did not answer as the probe answers: no verdict can be drawn from this cell."""


class CellTimeout(ChannelError):
    """The kernel did not answer within the cell's time limit."""


class KernelLost(ChannelError):
    """The kernel died while the test cell was being judged."""


class Channel:
    """One test cell's exchange with the kernel: start `serve`, ask, and end it."""

    def __init__(self, connection: dict, alive: Callable[[], bool], max_bytes: int = 300 << 20) -> None:
        self.session = Session(key=connection["key"].encode() if isinstance(connection["key"], str)
                               else connection["key"], signature_scheme=connection.get("signature_scheme",
                                                                                      "hmac-sha256"))
        self.context = zmq.Context()
        self.alive = alive
        self.shell = self._socket(connection, "shell_port", 16 << 20)   # replies here are small: an execute_reply
        self.stdin = self._socket(connection, "stdin_port", max_bytes)
        self.request_id: str | None = None
        self.deadline = float("inf")
        self.token = ""
        self.ended = True   # no `serve` cell under way

    def _socket(self, connection: dict, port: str, max_bytes: int | None) -> zmq.Socket:
        socket = self.context.socket(zmq.DEALER)
        socket.linger = 0
        socket.identity = self.session.bsession   # input requests go to the identity that asked to execute
        if max_bytes is not None:
            socket.setsockopt(zmq.MAXMSGSIZE, max_bytes)
        transport, ip = connection.get("transport", "tcp"), connection["ip"]
        monitor = socket.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED)
        socket.connect(f"ipc://{ip}-{connection[port]}" if transport == "ipc" else f"tcp://{ip}:{connection[port]}")
        # The kernel's stdin socket (a ROUTER) drops a message for an identity whose handshake it has not
        # seen yet: the probe's first input request would be lost, and the cell would wait for nothing.
        try:
            if not monitor.poll(30_000):
                raise ChannelError(f"could not connect to the kernel's {port.split('_')[0]} channel")
            monitor.recv_multipart()
        finally:
            socket.disable_monitor()
            monitor.close(0)
        return socket

    def close(self) -> None:
        self.shell.close(0)
        self.stdin.close(0)
        self.context.term()

    # -- one cell

    def start(self, seconds: float) -> dict:
        """Run `serve` in the kernel; its first reply (the token echoed) or ChannelError."""
        self.deadline = time.monotonic() + seconds
        self.token = secrets.token_hex(16)
        message = self.session.send(self.shell, "execute_request", {
            "code": SERVE.format(token=self.token), "silent": False, "store_history": False,
            "user_expressions": {}, "allow_stdin": True, "stop_on_error": False})
        self.request_id = message["header"]["msg_id"]
        self.ended = False
        hello = self._next_reply()
        if hello.get("hello") != self.token or hello.get("version") != VERSION:
            raise ChannelError("the kernel's first reply was not the probe's")
        return hello

    def ask(self, request: dict) -> dict:
        """Send one request; the kernel's reply."""
        self._answer(json.dumps(request))
        return self._next_reply()

    def finish(self, grace: float = 10.0) -> None:
        """End `serve` and wait for its cell to finish; ChannelError if it did not finish cleanly."""
        if self.ended:
            return
        self._answer(json.dumps({"op": "done"}))
        self.deadline = min(self.deadline, time.monotonic() + grace) if self.deadline != float("inf") else \
            time.monotonic() + grace
        reply = self._execute_reply()
        if reply.get("status") != "ok":
            raise ChannelError(f"the probe's cell ended with {reply.get('ename', 'an error')}")

    # -- the wire

    def _answer(self, text: str) -> None:
        self.session.send(self.stdin, "input_reply", {"value": text, "status": "ok"})

    def _poll(self, sockets: list[zmq.Socket]) -> zmq.Socket:
        poller = zmq.Poller()
        for socket in sockets:
            poller.register(socket, zmq.POLLIN)
        while True:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise CellTimeout("the kernel did not answer within the cell's time limit")
            ready = dict(poller.poll(int(min(left, 1.0) * 1000)))
            for socket in sockets:
                if socket in ready:
                    return socket
            if not self.alive():
                raise KernelLost("the kernel died")

    def _recv(self, socket: zmq.Socket) -> dict:
        try:
            _, message = self.session.recv(socket, mode=0)
        except (ValueError, TypeError, KeyError, zmq.ZMQError) as error:   # not signed with the key, or not JSON
            raise ChannelError(f"a message from the kernel could not be read ({type(error).__name__})") from None
        if message is None:
            raise ChannelError("an empty message from the kernel")
        return message

    def _next_reply(self) -> dict:
        while True:
            socket = self._poll([self.stdin, self.shell])
            message = self._recv(socket)
            if message["parent_header"].get("msg_id") != self.request_id:
                continue   # an answer to something else: not this cell's
            if socket is self.shell and message["msg_type"] == "execute_reply":
                self.ended = True
                content = message["content"]
                raise ChannelError(f"the probe's cell ended before it answered ({content.get('status')}: "
                                   f"{content.get('ename', '')} {content.get('evalue', '')})".rstrip())
            if message["msg_type"] != "input_request":
                continue
            prompt = message["content"].get("prompt", "")
            if not isinstance(prompt, str) or not prompt.startswith(PREFIX):
                raise ChannelError("the kernel asked for input that was not the probe's")
            try:
                reply = json.loads(prompt[len(PREFIX):])
            except ValueError:
                raise ChannelError("the probe's reply was not JSON") from None
            if not isinstance(reply, dict):
                raise ChannelError("the probe's reply was not an object")
            return reply

    def _execute_reply(self) -> dict:
        while True:
            socket = self._poll([self.shell, self.stdin])
            message = self._recv(socket)
            if message["parent_header"].get("msg_id") != self.request_id:
                continue
            if socket is self.stdin:
                raise ChannelError("the kernel asked for more after the grader was done")
            if message["msg_type"] == "execute_reply":
                self.ended = True
                return message["content"]

    def wait_for_end(self, seconds: float) -> None:
        """After an interrupt: wait up to `seconds` for the `serve` cell to end (its reply, whatever it says)."""
        if self.ended:
            return
        self.deadline = time.monotonic() + seconds
        with contextlib.suppress(ChannelError):
            self._execute_reply()
