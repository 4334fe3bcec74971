"""
gsmcpd's tests.

Property tests run without hypothesis's per-example deadline: parsing a
rendered template takes tens of milliseconds, and on a loaded machine
(CI shares its cores) that is not a failure.
"""

from hypothesis import settings

settings.register_profile("gsmcpd", deadline=None)
settings.load_profile("gsmcpd")
