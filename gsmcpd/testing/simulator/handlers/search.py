"""
The search templates: implementors, senders, references and source text,
answered as the templates answer them on a real stone.
"""

from gsmcpd.testing.simulator import system
from gsmcpd.testing.simulator.handlers import codeModel, handler


def _row(method):
    return [method.className, method.meta, method.selector, method.category]


def _sortedPage(methods, args):
    """
    The rows sorted by class, instance side first, then selector, and the
    window C{offset}/C{limit} asks for, with the total.
    """
    rows = sorted(map(_row, methods), key=lambda row: row[:3])
    offset, limit = args["offset"], args["limit"]
    end = len(rows) if limit is None else offset + limit
    return {"total": len(rows), "methods": rows[offset:end]}


@handler("find_implementors")
def findImplementors(ev, args):
    return _sortedPage(codeModel(ev).implementorsOf(args["selector"]), args)


@handler("find_senders")
def findSenders(ev, args):
    return _sortedPage(codeModel(ev).sendersOf(args["selector"]), args)


@handler("find_references_to")
def findReferencesTo(ev, args):
    name = args["name"]
    if system.resolve(ev.session, name) is None:
        return {"gsmcpNotFound": (
            f"Global not found: {name} (no global of that name in this "
            "session's symbol list)")}
    return _sortedPage(codeModel(ev).referencesTo(name), args)


@handler("search_method_source")
def searchMethodSource(ev, args):
    model = codeModel(ev)
    dictionaryName = args["dictionaryName"]
    if dictionaryName is not None and dictionaryName not in model.symbolList():
        return {"gsmcpNotFound": (
            f"Dictionary not found: {dictionaryName} (list_dictionaries lists "
            "the dictionaries of this session's symbol list)")}
    pattern, offset, limit = args["pattern"], args["offset"], args["limit"]
    seen, hits = 0, []
    for method in model.scanMethods(dictionaryName):
        if pattern in method.source:
            seen += 1
            if limit is not None and seen > offset:
                hits.append(_row(method))
                if len(hits) > limit:
                    break
    return {"seen": seen, "hits": hits}
