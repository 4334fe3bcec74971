"""
Property-based fuzzing of every MCP method's params, and of the envelope
around them, against a live C{twistd gsmcp --simulated}: whatever a client
sends, the answer is never a 5xx, is JSON with the request's id, and the
daemon goes on answering C{ping}.
"""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from twisted.trial.unittest import SynchronousTestCase

from tests.hostile.live import LiveDaemon

METHODS = (
    "initialize", "ping", "tools/list", "tools/call", "resources/list",
    "resources/templates/list", "resources/read", "resources/subscribe",
    "resources/unsubscribe", "prompts/list", "prompts/get",
    "completion/complete", "logging/setLevel", "notifications/cancelled",
    "notifications/initialized", "notifications/progress")

FUZZ = settings(max_examples=60, deadline=None, database=None,
                derandomize=True,
                suppress_health_check=[HealthCheck.too_slow,
                                       HealthCheck.data_too_large])

scalars = (st.none() | st.booleans()
           | st.integers(min_value=-2 ** 70, max_value=2 ** 70)
           | st.floats(allow_nan=False, allow_infinity=False)
           | st.text(max_size=40))
values = st.recursive(
    scalars, lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12)
ids = (st.integers(min_value=-2 ** 63, max_value=2 ** 63) | st.text(max_size=20)
       | st.none() | st.booleans() | st.floats(allow_nan=False)
       | st.lists(st.integers(), max_size=2))
metas = values | st.dictionaries(
    st.sampled_from(["progressToken", "_meta", "io.modelcontextprotocol/x"]),
    values, max_size=2)


def paramsFor(names):
    """
    Params objects keyed by C{names} (and a stray key), holding any JSON.
    """
    keys = st.sampled_from(sorted(names) + ["_meta", "stray"])
    return st.dictionaries(keys, values, max_size=len(names) + 2)


class EnvelopeFuzzTests(LiveDaemon, SynchronousTestCase):
    """
    The JSON-RPC envelope: any method, id, params and C{_meta}.
    """

    @FUZZ
    @given(method=st.sampled_from(METHODS) | st.text(max_size=20) | values,
           id=ids, params=values, withId=st.booleans())
    def test_anyEnvelope(self, method, id, params, withId):
        document = {"jsonrpc": "2.0", "method": method, "params": params}
        if withId:
            document["id"] = id
        self.call(document)

    @FUZZ
    @given(method=st.sampled_from(METHODS), meta=metas,
           params=paramsFor(["name", "arguments", "uri", "cursor", "level",
                             "ref", "argument", "requestId", "reason",
                             "protocolVersion", "clientInfo",
                             "capabilities", "progressToken"]))
    def test_paramsOfEveryMethod(self, method, meta, params):
        self.call({"jsonrpc": "2.0", "id": 7, "method": method,
                   "params": {**params, "_meta": meta}})

    @FUZZ
    @given(document=values)
    def test_anyJsonBody(self, document):
        self.call(document)

    @FUZZ
    @given(body=st.binary(max_size=200))
    def test_anyBytes(self, body):
        self.call(body)


class ToolArgumentFuzzTests(LiveDaemon, SynchronousTestCase):
    """
    Every tool's arguments, keyed as its schema names them, holding any
    JSON: a tool error or an invalid-params error, never a failure.
    """

    def setUp(self):
        super().setUp()
        _, answer = self.call({"jsonrpc": "2.0", "id": 1,
                               "method": "tools/list"})
        self.tools = {
            tool["name"]: sorted(tool["inputSchema"].get("properties", ()))
            for tool in answer["result"]["tools"]}

    @FUZZ
    @given(data=st.data())
    def test_everyToolsArguments(self, data):
        name = data.draw(st.sampled_from(sorted(self.tools)))
        arguments = data.draw(paramsFor(self.tools[name]) | values)
        status, answer = self.call({
            "jsonrpc": "2.0", "id": "fuzz", "method": "tools/call",
            "params": {"name": name, "arguments": arguments}})
        self.assertEqual(status, 200, answer)
        if "error" in answer:
            self.assertEqual(answer["error"]["code"], -32602, answer)
        else:
            self.assertIsInstance(answer["result"]["isError"], bool)

