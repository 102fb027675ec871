"""The client's overall deadline: a server that trickles a byte now and then, each gap well inside
the per-read timeout, is cut at request_timeout_s (argus_timeout), not read for as long as it
trickles. The server is a SIMULATED stand-in (a stdlib UnixStreamServer): a real serve never
trickles; its routes are covered in test_client_real_serve.py."""
import os
import socketserver
import threading
import time
import unittest

from argus_supervisor_tests import support
from usr.plugins.argus_supervisor.helpers.argus_client import ArgusClient, ArgusError

BODY_BYTES = 100
GAP_S = 0.2  # one byte per gap: 20 s for the whole body


class Trickle(socketserver.StreamRequestHandler):
    def handle(self):
        while self.rfile.readline() not in (b"\r\n", b""):
            pass  # the request's headers (a GET has no body)
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % BODY_BYTES)
        body = b'{"status": "ok", "pad": "' + b"x" * (BODY_BYTES - 28) + b'"}'
        for i in range(BODY_BYTES):
            if self.server.stopping.is_set():
                return
            try:
                self.wfile.write(body[i : i + 1])
                self.wfile.flush()
            except OSError:
                return  # the client cut the connection
            time.sleep(GAP_S)


class OverallDeadline(unittest.TestCase):
    def setUp(self):
        root = support.new_state_root(self, "deadline")
        self.socket_path = os.path.join(root, "trickle.sock")
        self.server = socketserver.ThreadingUnixStreamServer(self.socket_path, Trickle)
        self.server.daemon_threads = True
        self.server.stopping = threading.Event()
        thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        thread.start()

        def stop():
            self.server.stopping.set()
            self.server.shutdown()
            self.server.server_close()
            thread.join(5)

        self.addCleanup(stop)

    def test_a_trickling_answer_is_cut_at_the_deadline(self):
        client = ArgusClient(self.socket_path, os.path.join(os.path.dirname(self.socket_path), "no-key"), connect_timeout_s=1, request_timeout_s=1)
        started = time.monotonic()
        with self.assertRaises(ArgusError) as caught:
            client.public_health()
        took = time.monotonic() - started
        self.assertEqual(caught.exception.code, "argus_timeout")
        self.assertGreaterEqual(took, 0.9)
        self.assertLess(took, 3, "the per-read timeout alone would have read for 20 s")


if __name__ == "__main__":
    unittest.main()
