"""
Input-required results: how a 2026-era server asks the client something in
the middle of a request.

Where a 2025 server sends C{elicitation/create} or C{sampling/createMessage}
to the client on the call's own stream and waits, a 2026 server answers the
call at once with C{resultType: "input_required"}, the questions
(C{inputRequests}, each keyed by a name the server chooses) and sealed
C{requestState}; the client asks its user or model and sends the same
request again with C{inputResponses} under the same keys and the state
unchanged.  Only these methods may answer so.
"""

from gsmcpd.protocol.eras.modern.results import INPUT_REQUIRED
from gsmcpd.protocol.jsonrpc import INVALID_PARAMS, JsonObject, JsonRpcError

METHODS = frozenset({"tools/call", "prompts/get", "resources/read",
                     "tasks/result"})
"""The requests an input-required result may answer."""


def inputRequired(method: str, inputRequests: JsonObject,
                  requestState: str | None = None) -> JsonObject:
    """
    The result that asks: C{inputRequests} by key, and the state to send
    back with the answers.

    @raise ValueError: for a method that may not answer so (a bug here,
        not the client's).
    """
    if method not in METHODS:
        raise ValueError(f"{method} may not answer input_required")
    result = {"resultType": INPUT_REQUIRED, "inputRequests": inputRequests}
    if requestState is not None:
        result["requestState"] = requestState
    return result


def inputResponses(params: JsonObject) -> JsonObject:
    """
    The answers a request carries, by key (empty on a first round).

    Keys the server did not ask are the caller's to ignore; an answer that
    is not an object, or C{inputResponses} that is not one, is malformed.

    @raise JsonRpcError: C{-32602} for malformed answers.
    """
    if "inputResponses" not in params:
        return {}
    answers = params["inputResponses"]
    if not isinstance(answers, dict):
        raise JsonRpcError(INVALID_PARAMS, "Invalid params: inputResponses "
                           "must be an object of answers by key")
    for key, answer in answers.items():
        if not isinstance(answer, dict):
            raise JsonRpcError(INVALID_PARAMS, f"Invalid params: the answer "
                               f"to {key!r} must be an object")
    return answers
