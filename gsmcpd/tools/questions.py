"""
What a tool may ask the client while it runs: a person (elicitation), the
client's model (sampling) or the client itself (its roots).

A tool builds its questions here and asks them through its call
(C{call.ask({key: question})}); how they travel depends on the protocol
era, which the tool never sees (L{gsmcpd.protocol.asking}).
"""

CAPABILITY = {"elicitation/create": "elicitation",
              "sampling/createMessage": "sampling",
              "roots/list": "roots"}
"""The client capability each kind of question needs."""


def elicitation(message, properties, required=()):
    """
    A question for the user: a form of flat, primitive fields.
    """
    schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return {"method": "elicitation/create",
            "params": {"mode": "form", "message": message,
                       "requestedSchema": schema}}


def sampling(text, maxTokens):
    """
    A question for the client's model: one user message.
    """
    return {"method": "sampling/createMessage",
            "params": {"messages": [{"role": "user", "content": {
                "type": "text", "text": text}}],
                       "maxTokens": maxTokens}}


def roots():
    """
    A request for the client's roots.
    """
    return {"method": "roots/list", "params": {}}


def accepted(answer):
    """
    The content of an accepted elicitation answer, or L{None} when the user
    declined, cancelled, or the answer is not an elicitation's.
    """
    if answer is None or answer.get("action") != "accept":
        return None
    content = answer.get("content")
    return content if isinstance(content, dict) else {}
