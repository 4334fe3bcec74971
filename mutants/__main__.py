import sys

from mutants.cli import main

sys.exit(main())
