"""
The targets the issue sets, each checked against one figure of the report.

None is a test: a machine that is busy for a minute can miss one. The bench
prints each as met or not met, with the figure, so a miss is looked into.
"""

import attr


@attr.s(frozen=True, auto_attribs=True)
class Target:
    """
    One target: the figure at C{path} in the report's C{ratios} (a
    dotted path), compared with C{limit}.

    @ivar atLeast: whether the figure must be at least C{limit} (else at
        most).
    """

    name: str
    path: str
    limit: float
    atLeast: bool
    unit: str = "x"

    def check(self, figures):
        """
        C{{name, figure, limit, comparison, unit, met}}; C{met} is L{None}
        when the figure was not measured.
        """
        figure = figures.get(self.path)
        if figure is None:
            met = None
        elif self.atLeast:
            met = figure >= self.limit
        else:
            met = figure <= self.limit
        return {"name": self.name, "figure": figure, "limit": self.limit,
                "comparison": ">=" if self.atLeast else "<=",
                "unit": self.unit, "met": met}


TARGETS = (
    Target("ping throughput vs bare twisted.web echo",
           "ping.throughput", 0.60, atLeast=True),
    Target("null stone: tools/call throughput vs the SDK server's tool",
           "null.tools_call.throughput", 3.0, atLeast=True),
    Target("null stone: daemon CPU per tools/call vs the SDK server's",
           "null.tools_call.cpu_per_request", 0.33, atLeast=False),
    Target("null stone: tools/call p50 over ping p50, no load",
           "null.added_p50_ms", 0.5, atLeast=False, unit="ms"),
    Target("tools/list + instructions", "surface.kb", 25.0, atLeast=False,
           unit="KB"),
    Target("tools lacking outputSchema, annotations or title",
           "surface.incomplete_tools", 0, atLeast=False, unit=""),
    Target("tools/call p99 vs the SDK server's p99",
           "tools_call.p99", 1.0, atLeast=False),
    Target("ping p99 with 50 sessions blocked vs nothing blocked",
           "blocked.ping_p99", 2.0, atLeast=False),
    Target("tools/call p99 with 50 sessions blocked vs nothing blocked",
           "blocked.tools_call_p99", 2.0, atLeast=False),
    Target("daemon RSS holding 1,000 sessions with streams",
           "capacity.rss_mb", 150.0, atLeast=False, unit="MB"),
    Target("ping p99 while holding them",
           "capacity.ping_p99_ms", 10.0, atLeast=False, unit="ms"),
    Target("daemon RSS after 3,000 task attempts on one handle",
           "flood.rss_mb", 120.0, atLeast=False, unit="MB"),
    *(Target(f"simulated stone: {what} cost against repository size "
             "(log-log slope; 1 is linear)", f"search.{key}.slope", 1.25,
             atLeast=False, unit="")
      for what, key in (("cross-reference index", "index"),
                        ("find_senders size", "find_senders_size"),
                        ("search_method_source reading every source",
                         "search_method_source_no_hit"),
                        ("find_code's first page, perform:with:",
                         "find_code_perform"),
                        ("find_code's first page, size",
                         "find_code_size"))),
    *(Target(f"simulated stone: find_code's first page, {what}, on the "
             "largest repository vs a search reading every source there",
             f"search.{key}.first_page", 1.5, atLeast=False)
      for what, key in (("perform:with:", "find_code_perform"),
                        ("size", "find_code_size"))),
    Target("Tonel export of a kernel-sized dictionary: CPU over the "
           "simulated stone's own for its templates", "tonel.export_over_stone",
           1.5, atLeast=False),
    Target("diff_tonel of the export's first page: CPU over the simulated "
           "stone's own for its templates", "tonel.diff_over_stone", 3.0,
           atLeast=False),
)


def evaluate(figures, targets=TARGETS):
    """
    Every target checked against C{figures} (dotted path to number).
    """
    return [target.check(figures) for target in targets]


def describe(outcome):
    """
    One line for a checked target.
    """
    verdict = {True: "met", False: "NOT MET", None: "not measured"}[
        outcome["met"]]
    figure = "-" if outcome["figure"] is None else f"{outcome['figure']:.2f}"
    return (f"{verdict:>12}  {outcome['name']}: {figure}{outcome['unit']} "
            f"(target {outcome['comparison']} {outcome['limit']:g}"
            f"{outcome['unit']})")
