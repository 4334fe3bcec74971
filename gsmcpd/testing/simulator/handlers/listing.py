"""
The listing templates: the symbol list's dictionaries and what they hold.
"""

from gsmcpd.testing.simulator.handlers import codeModel, handler
from gsmcpd.testing.simulator.model import ClassInfo


def _entries(ev, args):
    """
    C{(entries, None)} of the dictionary the arguments name, or C{(None,
    answer)} with the template's not-found answer.
    """
    name = args["dictionaryName"]
    entries = codeModel(ev).dictionaryEntries(name)
    if entries is None:
        return None, {"gsmcpNotFound": (
            f"Dictionary not found: {name} (list_dictionaries lists the "
            "dictionaries of this session's symbol list)")}
    return entries, None


def _classNames(entries):
    return [value.name for value in entries.values() if isinstance(value, ClassInfo)]


@handler("list_dictionaries")
def listDictionaries(ev, args):
    model = codeModel(ev)
    return [{"name": name, "size": len(model.dictionaryEntries(name))}
            for name in model.symbolList()]


@handler("list_all_classes")
def listAllClasses(ev, args):
    model = codeModel(ev)
    return [{"dictionary": name, "classes": _classNames(model.dictionaryEntries(name))}
            for name in model.symbolList()]


@handler("list_classes")
def listClasses(ev, args):
    entries, notFound = _entries(ev, args)
    return notFound or _classNames(entries)


@handler("list_dictionary_entries")
def listDictionaryEntries(ev, args):
    entries, notFound = _entries(ev, args)
    return notFound or [{"name": name, "isClass": isinstance(value, ClassInfo)}
                        for name, value in entries.items()]
