"""
The report of C{gsmcpd check --templates}: one row per step, each
template's verdict, and what it ran against; a table for a terminal, JSON
to attach to a bug report.
"""

import attr

from gsmcpd import __version__
from gsmcpd.tools.templates.render import templateNames


@attr.s(frozen=True, auto_attribs=True)
class Row:
    """
    One line of the report.

    @ivar templates: the templates the step ran, in order.
    @ivar blamed: the template a failure is put down to (the last one run).
    """

    step: str
    ok: bool
    detail: str
    templates: tuple[str, ...] = ()
    milliseconds: int = 0

    @property
    def blamed(self) -> str | None:
        return None if self.ok or not self.templates else self.templates[-1]


@attr.s(auto_attribs=True)
class Report:
    """
    What the check found: its rows, what it ran against, and each
    template's verdict.

    @ivar notes: what was left out on purpose, and how to run it; neither
        a pass nor a failure.
    """

    rows: list[Row] = attr.Factory(list)
    stone: dict = attr.Factory(dict)
    library: str | None = None
    notes: list[str] = attr.Factory(list)

    @property
    def templates(self) -> dict[str, str]:
        """
        Each template's verdict: C{fail} if a failing step is put down to
        it, else C{pass} if a step ran it, else C{not run}.
        """
        verdicts = {name: "not run" for name in templateNames()}
        for row in self.rows:
            for name in row.templates:
                if verdicts.get(name) == "not run":
                    verdicts[name] = "pass"
        for row in self.rows:
            if row.blamed is not None:
                verdicts[row.blamed] = "fail"
        return verdicts

    @property
    def ok(self) -> bool:
        return all(row.ok for row in self.rows) and all(
            verdict == "pass" for verdict in self.templates.values())

    def document(self) -> dict:
        """
        The report as JSON, for a bug report.
        """
        return {"gsmcpd": __version__, "library": self.library,
                "stone": self.stone, "ok": self.ok,
                "templates": self.templates, "notes": self.notes,
                "steps": [attr.asdict(row) for row in self.rows]}

    def table(self) -> str:
        """
        The report as a table for a terminal.
        """
        width = max([len(row.step) for row in self.rows] + [4])
        lines = [f"gsmcpd {__version__}, libgcits {self.library or '?'}, "
                 f"stone {self.stone.get('stone', '?')} (GemStone "
                 f"{self.stone.get('version', '?')}) as "
                 f"{self.stone.get('user', '?')}"]
        for row in self.rows:
            ran = "" if row.templates in ((), (row.step,)) else \
                f" [templates: {', '.join(row.templates)}]"
            lines.append(f"{'PASS' if row.ok else 'FAIL'}  "
                         f"{row.step:<{width}}  {row.detail}{ran}")
        lines += [f"NOTE  {note}" for note in self.notes]
        verdicts = self.templates
        failed = sorted(name for name, verdict in verdicts.items()
                        if verdict != "pass")
        passed = len(verdicts) - len(failed)
        lines.append(f"{passed} of {len(verdicts)} templates pass"
                     + (f"; failing or not run: {', '.join(failed)}"
                        if failed else ""))
        return "\n".join(lines) + "\n"
