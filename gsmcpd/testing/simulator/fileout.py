"""
Class source text in GemStone 3.7's shapes: the definition expression
C{Class>>definition} answers and the topaz file-in text of
C{Class>>fileOutClass}, so tools show what a real stone would.
"""

from gsmcpd.tools.templates.render import stringLiteral

_RULE = "! ------------------- "


def _names(names):
    return "#(" + "".join(f" {name}" for name in names) + ")"


def definition(info, keyword="subclass:"):
    """
    The expression that defines the class described by the ClassInfo,
    sent as C{keyword} (C{byteSubclass:} takes no C{instVarNames:} and, as
    Rowan files a byte class out, no C{classInstVars:}).
    """
    pointer = keyword != "byteSubclass:"
    return "\n".join([
        f"{info.superclassName or 'nil'} {keyword} {stringLiteral(info.name)}",
        *([f"  instVarNames: {_names(info.instVarNames)}"] if pointer else []),
        f"  classVars: {_names(info.classVars)}",
        *([f"  classInstVars: {_names(info.classInstVars)}"] if pointer else []),
        f"  poolDictionaries: {_names(info.poolDictionaries)}",
        f"  inDictionary: {info.dictionary}",
        f"  options: {_names(info.options)}",
    ])


def _doit(expression):
    return f"expectvalue /Class\ndoit\n{expression}\n%\n"


def _method(keyword, info):
    return (f"category: {stringLiteral(info.category)}\n{keyword}: {info.className}\n"
            f"{info.source.rstrip()}\n%\n")


def fileOut(info, classMethods, instanceMethods, keyword="subclass:"):
    """
    Topaz input that recreates the class: its definition, comment and
    category, then its methods after removing the ones it had.
    """
    name = info.name
    parts = [f"{_RULE}Class definition for {name}\n", _doit(definition(info, keyword) + "\n")]
    if info.comment:
        parts.append("\n" + _doit(f"{name} comment: \n{stringLiteral(info.comment)}"))
    if info.category:
        parts.append("\n" + _doit(f"{name} category: {stringLiteral(info.category)}"))
    parts.append(f"\n{_RULE}Remove existing behavior from {name}\n"
                 f"removeallmethods {name}\nremoveallclassmethods {name}\n")
    parts.append(f"{_RULE}Class methods for {name}\n")
    parts.extend(_method("classmethod", m) for m in classMethods)
    parts.append(f"{_RULE}Instance methods for {name}\n")
    parts.extend(_method("method", m) for m in instanceMethods)
    return "".join(parts)
