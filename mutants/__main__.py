import sys

from mutants.engine import main

sys.exit(main())
