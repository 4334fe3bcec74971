import sys

from gsmcpd.testing.mutants.cli import main

sys.exit(main())
