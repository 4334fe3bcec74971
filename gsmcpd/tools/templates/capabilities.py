"""
The optional kernel messages the templates send: GemStone versions differ
in which they have, so the templates ask (C{respondsTo:}) before sending
one, and the daemon says once, at start-up and in C{gsmcpd check}, which
this stone lacks and what is lost without it.
"""

from collections.abc import Sequence

import attr
from twisted.internet.defer import Deferred

from gsmcpd.gci.interfaces import IGemSession
from gsmcpd.tools.templates.outcomes import ToolError
from gsmcpd.tools.templates.run import TemplateAnswer, runTemplate


@attr.s(frozen=True, auto_attribs=True)
class Capability:
    """
    One optional class-side message of C{System}, and what the daemon does
    without it.
    """

    selector: str
    withoutIt: str

    def __str__(self) -> str:
        return f"System {self.selector} ({self.withoutIt})"


OPTIONAL = (
    Capability("stoneCacheStatisticWithName:",
               "the commit-record backlog is unknown, so a view pinning the "
               "oldest commit record is never ended"),
    Capability("sessionsReferencingOldestCr",
               "the sessions holding the oldest commit record are read from "
               "each session's description, which needs SessionAccess"),
    Capability("descriptionOfSession:",
               "how far a view is behind is unknown, so views are never "
               "refreshed"),
    Capability("cacheStatisticsForSessionId:",
               "a gem's name in the shared cache is not read back"),
    Capability("stoneConfigurationAt:",
               "STN_SIGNAL_ABORT_CR_BACKLOG is unknown, so only "
               "--max-commits-behind limits a view"),
    Capability("cacheStatisticsDescriptionForMonitor",
               "stone_status does not report the shared page cache's use"),
    Capability("sharedPageCacheMonitorCacheStatistics",
               "stone_status does not report the shared page cache's use"),
)


def lackingCapabilities(gem: IGemSession) -> Deferred[list[Capability]]:
    """
    The L{Capability}s of L{OPTIONAL} this stone lacks, asked on C{gem}.

    @return: a L{Deferred} firing with a list, or failing as
        L{runTemplate} does.
    """
    bySelector = {each.selector: each for each in OPTIONAL}

    def named(answer: TemplateAnswer) -> list[Capability]:
        if not isinstance(answer.value, list) or not set(
                answer.value) <= set(bySelector):
            raise ToolError("other", "the stone answered "
                            f"{answer.value!r}, not a list of the messages "
                            "it was asked about")
        return [bySelector[each] for each in answer.value]
    return runTemplate(gem, "lacking_capabilities", {
        "selectors": list(bySelector)}).addCallback(named)


def describeLacking(lacking: Sequence[Capability]) -> str:
    """
    One sentence for the log and C{gsmcpd check}.
    """
    if not lacking:
        return "this stone has every optional message the templates send"
    return ("this stone lacks " + "; ".join(str(each) for each in lacking)
            + "; gsmcpd serves without it")
