"""
Input-required results: a 2026 server asks by answering at once with keyed
C{inputRequests} and a sealed C{requestState}; the client sends the same
request again with C{inputResponses} under those keys, and the state.
"""

from gsmcpd.protocol.eras.modern.results import INPUT_REQUIRED
from gsmcpd.protocol.jsonrpc import JsonObject, invalidParams

METHODS = frozenset({"tools/call", "prompts/get", "resources/read",
                     "tasks/result"})
"""The requests an input-required result may answer."""


def inputRequired(method: str, inputRequests: JsonObject,
                  requestState: str | None = None) -> JsonObject:
    """Raises L{ValueError} for a method that may not answer so (our bug)."""
    if method not in METHODS:
        raise ValueError(f"{method} may not answer input_required")
    result = {"resultType": INPUT_REQUIRED, "inputRequests": inputRequests}
    if requestState is not None:
        result["requestState"] = requestState
    return result


def inputResponses(params: JsonObject) -> JsonObject:
    """The answers a request carries, by key (the caller ignores others)."""
    if "inputResponses" not in params:
        return {}
    answers = params["inputResponses"]
    if not isinstance(answers, dict):
        raise invalidParams("inputResponses must be an object of answers "
                            "by key")
    for key, answer in answers.items():
        if not isinstance(answer, dict):
            raise invalidParams(f"the answer to {key!r} must be an object")
    return answers
