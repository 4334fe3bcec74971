import sys

from gsmcpd.testing.bench.run import main

sys.exit(main())
