import sys

from wireplan.cli import main

sys.exit(main())
