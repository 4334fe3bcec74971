"""
The floor: a bare C{twisted.web} resource answering every JSON-RPC POST with
an empty result, on the same reactor twistd picks.  No Klein, no sessions,
no access log: whatever gsmcpd's C{ping} costs above this is ours.

Run: C{python -m gsmcpd.testing.bench.echo PORT}.
"""

import json
import sys

from twisted.internet import reactor
from twisted.web.resource import Resource
from twisted.web.server import Site


class Echo(Resource):
    isLeaf = True

    def render_POST(self, request):
        message = json.loads(request.content.read())
        request.setHeader(b"content-type", b"application/json")
        return json.dumps({"jsonrpc": "2.0", "id": message.get("id"),
                           "result": {}}).encode("utf-8")


class QuietSite(Site):
    """
    A site that keeps no access log, so the floor is the HTTP stack alone.
    """

    def log(self, request):
        pass


def main(port):
    reactor.listenTCP(port, QuietSite(Echo()), interface="127.0.0.1")
    reactor.run()


if __name__ == "__main__":
    main(int(sys.argv[1]))
