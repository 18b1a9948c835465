import sys

from desyr.cli import main

sys.exit(main())
