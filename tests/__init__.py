"""
gsmcpd's tests.

Property tests run without hypothesis's per-example deadline: parsing a
rendered template takes tens of milliseconds, and on a loaded machine
(CI shares its cores) that is not a failure.

A deprecation warning attributed to our own code (gsmcpd's or the tests')
fails the test that caused it: trial re-emits every warning a test did not
flush once the test is over, and this filter turns ours into errors, while
a library's warnings about its own internals stay warnings.
"""

import warnings

from hypothesis import settings

OUR_CODE = r".*[/\\](gsmcpd|tests)[/\\]"
"""Where a warning is attributed to our code: trial re-emits it by file
name, so the filter matches the path."""

warnings.filterwarnings("error", category=DeprecationWarning,
                        module=OUR_CODE)

settings.register_profile("gsmcpd", deadline=None)
settings.load_profile("gsmcpd")
