"""
A blocking client for the simulated stone's CONTROL requests: the tests'
back door (kill a gem, move views, change the login cap).  Real stones have
no such thing.
"""

import json
import socket

import attr

from gsmcpd.testing.simulator import wire


class ControlError(Exception):
    """
    The simulated stone refused a CONTROL request.
    """


@attr.s
class SimulatorControl:
    """
    Sends CONTROL requests to the simulated stone at C{socketPath}.
    """

    socketPath = attr.ib()
    timeout = attr.ib(default=10.0)

    def call(self, request):
        """
        Send C{request} (e.g. C{{"op": "sessions"}}) and answer the reply.
        """
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(self.timeout)
            sock.connect(self.socketPath)
            sock.sendall(wire.encodeFields(wire.CONTROL, [json.dumps(request)]))
            status, fields = wire.readFrame(sock)
        if status != wire.OK:
            raise ControlError(fields[2].decode("utf-8", "replace"))
        return json.loads(fields[0])
