"""
The 2026-07-28 era's own protocol modules: the envelope each request
carries in place of a handshake, the endpoint answering its requests,
GemStone sessions behind handles and which one a call runs on,
input-required rounds and their sealed state, tasks, skills, and the
dress of its results.  What both eras share is in L{gsmcpd.protocol}.
"""
